// Child-process entry for the HTTP benchmark's floor: the least an HTTP→stdio MCP bridge can do.
// It runs the command given as its arguments, listens on a free port of 127.0.0.1 (announced as
// one `LISTENING <url>` line), writes each POSTed JSON-RPC message to the child's stdin as a line,
// and answers each request with the line of the same ID the child writes back, as a plain JSON
// response (no sessions, no SSE stream, no batches): JSON is parsed only to read IDs.
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) throw new Error('bridge needs a command');
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const waiting = new Map<unknown, ServerResponse>();
let pending = '';
child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
  pending += chunk;
  let end: number;
  while ((end = pending.indexOf('\n')) !== -1) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    const { id } = JSON.parse(line) as { id?: unknown };
    const res = waiting.get(id);
    if (res === undefined) continue; // a notification or a request of the server's: dropped
    waiting.delete(id);
    res.writeHead(200, { 'content-type': 'application/json' }).end(line);
  }
});
const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    const { id } = JSON.parse(body) as { id?: unknown };
    if (id === undefined) res.writeHead(202).end();
    else waiting.set(id, res);
    child.stdin.write(`${body}\n`);
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`LISTENING http://127.0.0.1:${port}/mcp\n`);
});
process.once('SIGTERM', () => {
  child.kill();
  process.exit(0);
});
