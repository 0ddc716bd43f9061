// The least any Node.js command can do to list a stdio server's tools the way the spec asks a
// client that speaks both eras to: spawn the server as its first statement, send
// `server/discover` (refused by a 2025 server), then `initialize`, `notifications/initialized`
// and `tools/list`, print the tools' names and exit. No SDK, no validation, no config: raw
// JSON lines. bench/tools-list.ts runs it as a child beside the CLI; its time over the server's
// own start is the floor under the CLI's ratio (Node's start, the probe's round trip, an exit).
// argv: the server's command and arguments.
import { spawn } from 'node:child_process';
import process from 'node:process';

const [command, ...args] = process.argv.slice(2);
// The environment the MCP SDK (and the CLI) gives a stdio server by default: a variable that
// slows a Node.js start (NODE_EXTRA_CA_CERTS, NODE_OPTIONS) reaches neither server.
const env = {};
for (const name of ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER']) {
  if (process.env[name] !== undefined) env[name] = process.env[name];
}
const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

send({ id: 0, method: 'server/discover', params: {} });
let buffered = '';
child.stdout.on('data', (chunk) => {
  buffered += chunk;
  for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
    const message = JSON.parse(buffered.slice(0, end));
    buffered = buffered.slice(end + 1);
    if (message.id === 0) {
      if (message.result !== undefined) throw new Error('a 2026 server: this floor is for 2025');
      send({
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'floor', version: '0' },
        },
      });
    } else if (message.id === 1) {
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/list', params: {} });
    } else if (message.id === 2) {
      process.stdout.write(`${message.result.tools.map((tool) => tool.name).join('\n')}\n`);
      child.kill();
      process.exit();
    }
  }
});
