// Test support, left out of the build (*.fixture.ts): starts one of this package's fixture entries
// (writer.fixture.ts, pin-writer.fixture.ts) as a child process and waits for the lines it prints.
// Every child started is killed when the calling file's tests end.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { entryArgs } from '@toolplane/fixtures';
import { afterEach } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** A child started by {@link useChildren}'s `start`. */
export interface FixtureChild {
  readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Its exit code once it ended and its output was read (`null` when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** The first line from now on starting with `prefix`; rejects if it exits first or after 60 s. */
  line(prefix: string): Promise<string>;
}

/** Registers the afterEach that kills what `start` started; call at the top of a test file. */
export function useChildren(): { start(entry: string, args: readonly string[]): FixtureChild } {
  const children = new Set<FixtureChild['child']>();
  afterEach(() => {
    for (const child of children) child.kill('SIGKILL');
    children.clear();
  });
  return {
    start(entry, args) {
      const child = spawn(
        process.execPath,
        [...entryArgs(fileURLToPath(new URL(entry, import.meta.url))), ...args],
        { cwd: packageDir, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      children.add(child);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // 'close', not 'exit': every line it printed has been read by then.
      const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
      const lines = createInterface({ input: child.stdout });
      return {
        child,
        exited,
        line: (prefix) =>
          new Promise((resolve, reject) => {
            const timeout = setTimeout(() => {
              reject(new Error(`${entry} printed no "${prefix}" line within 60 s: ${stderr}`));
            }, 60_000);
            const onLine = (line: string): void => {
              if (!line.startsWith(prefix)) return;
              clearTimeout(timeout);
              lines.off('line', onLine);
              resolve(line);
            };
            lines.on('line', onLine);
            void exited.then((code) => {
              clearTimeout(timeout);
              reject(
                new Error(`${entry} exited with ${String(code)} before "${prefix}": ${stderr}`),
              );
            });
          }),
      };
    },
  };
}
