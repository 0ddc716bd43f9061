// Child-process entry for the peers benchmarks: Mastra's MCP server (@mastra/mcp) in front of the
// stdio MCP server given as its arguments, as a Mastra user would build a gateway: an MCPClient
// for the upstream, its tools served by an MCPServer over Streamable HTTP on a free port of
// 127.0.0.1 (announced as one `LISTENING <url>` line), or, with `--stdio` before the command,
// over this process's stdio (`startStdio`).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MCPClient, MCPServer } from '@mastra/mcp';

const argv = process.argv.slice(2);
const stdio = argv[0] === '--stdio';
const [command, ...args] = stdio ? argv.slice(1) : argv;
if (command === undefined) throw new Error('mastra-server needs a command');
const client = new MCPClient({ servers: { fx: { command, args } } });
const server = new MCPServer({
  id: 'bench',
  name: 'bench',
  version: '0.0.0',
  tools: await client.listTools(),
});
if (stdio) {
  await server.startStdio();
  // The stdio client ends the session by closing our stdin; the upstream goes with us.
  process.stdin.once('end', () => {
    void client.disconnect().finally(() => process.exit(0));
  });
} else {
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    void server.startHTTP({ url, httpPath: '/mcp', req, res });
  });
  http.listen(0, '127.0.0.1', () => {
    const { port } = http.address() as AddressInfo;
    process.stdout.write(`LISTENING http://127.0.0.1:${String(port)}/mcp\n`);
  });
}
process.once('SIGTERM', () => {
  void client.disconnect().finally(() => process.exit(0));
});
