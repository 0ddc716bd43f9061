// Child-process entry for the benchmark's floor: a relay that moves bytes and understands none of
// them, the least any process in the middle can cost. `stdio <command> <args…>`: runs the command
// and joins its stdin and stdout to its own. `tcp <port>`: listens on a free port of 127.0.0.1,
// announced as one `LISTENING <port>` line, and joins every connection to 127.0.0.1:<port>.
import { spawn } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'stdio') {
  const [command, ...args] = rest;
  if (command === undefined) throw new Error('relay stdio needs a command');
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  process.stdin.pipe(child.stdin);
  child.stdout.pipe(process.stdout);
  process.stdin.once('end', () => child.kill());
  child.once('exit', (code) => process.exit(code ?? 0));
} else if (mode === 'tcp') {
  const port = Number(rest[0]);
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    const upstream = connect(port, '127.0.0.1');
    upstream.setNoDelay(true);
    socket.pipe(upstream).pipe(socket);
    const end = (): void => {
      socket.destroy();
      upstream.destroy();
    };
    socket.once('error', end).once('close', end);
    upstream.once('error', end).once('close', end);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`LISTENING ${(server.address() as AddressInfo).port}\n`);
  });
  process.once('SIGTERM', () => process.exit(0));
} else {
  throw new Error(`unknown relay mode ${String(mode)}`);
}
