// Child-process entry for bench/list.ts: an upstream of `<count>` tools over stdio, a bare SDK v2
// server paging its tools/list 1,000 a page (cursor: the index of the page's first tool), as
// upstreams with big catalogues serve them. The catalogue is made in list.ts's shape.
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { catalogue, pagedServer } from './catalogue.js';

const tools = catalogue(Number(process.argv[2] ?? 1_000));
const server = pagedServer(tools);
await server.connect(new StdioServerTransport());
