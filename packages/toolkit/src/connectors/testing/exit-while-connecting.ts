// Child-process entry for tests: starts a connector to the stdio server given after the first
// argument, waits until that server has written its PID to the file named by the first argument
// (during its handshake), then exits without closing anything, as a CLI does when it must end at
// once. What it leaves running is what the test looks for.
import { readFile } from 'node:fs/promises';
import { createConnector } from '../connector.js';

const [pidFile, command, ...args] = process.argv.slice(2);
if (pidFile === undefined || command === undefined) {
  throw new Error('usage: exit-while-connecting <pid file> <command> [args...]');
}
createConnector({ command, args }, { namespace: 'left' }).start();
for (;;) {
  const pid = await readFile(pidFile, 'utf8').catch(() => '');
  if (pid !== '') break;
  await new Promise((resolve) => setTimeout(resolve, 10));
}
process.exit(0);
