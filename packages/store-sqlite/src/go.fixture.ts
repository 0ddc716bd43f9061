// Test support for the writer fixtures run as child processes: prints "ready", then settles once
// "go" comes on stdin, so children started one after another write at the same time.
import { createInterface } from 'node:readline';

/** Says "ready" on stdout and settles when stdin says "go". */
export function readyThenGo(): Promise<void> {
  return new Promise<void>((resolve) => {
    const lines = createInterface({ input: process.stdin });
    lines.on('line', (line) => {
      if (line !== 'go') return;
      lines.close();
      resolve();
    });
    process.stdout.write('ready\n');
  });
}
