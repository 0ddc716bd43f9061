// Child-process entry for a reference point of the CPU benchmark: the least an MCP proxy built on
// the SDK v2 does. An SDK `Server` on stdio whose tools/list and tools/call handlers forward to
// an SDK `Client` of the command given as its arguments, and nothing else (no names, validation,
// tracing or sessions): what the SDK's own request handling costs a process in the middle.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) throw new Error('sdk-proxy needs a command');
const client = new Client({ name: 'sdk-proxy', version: '0' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level server, as a proxy needs
const server = new Server({ name: 'sdk-proxy', version: '0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', (request) => client.listTools(request.params));
server.setRequestHandler('tools/call', (request, ctx) =>
  client.callTool(request.params, { signal: ctx.mcpReq.signal }),
);
await server.connect(new StdioServerTransport());
