// Child-process entry for bench/list.ts: an upstream of `<count>` tools over stdio, a bare SDK v2
// server paging its tools/list 1,000 a page (cursor: the index of the page's first tool), as
// upstreams with big catalogues serve them. The catalogue is made in list.ts's shape.
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { catalogue, PAGE } from './catalogue.js';

const tools = catalogue(Number(process.argv[2] ?? 1_000));
// eslint-disable-next-line @typescript-eslint/no-deprecated -- a bare server, as upstreams often are
const server = new Server({ name: 'big', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', (request) => {
  const start = Number(request.params?.cursor ?? 0);
  const end = start + PAGE;
  return end < tools.length
    ? { tools: tools.slice(start, end), nextCursor: String(end) }
    : { tools: tools.slice(start) };
});
await server.connect(new StdioServerTransport());
