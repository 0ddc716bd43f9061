// How a CPU benchmark reads the CPU time of a process in the middle to the microsecond (where
// /proc/<pid>/stat counts 10 ms ticks): the process runs with cpu-probe.ts preloaded and answers
// SIGUSR2 with its own process.cpuUsage(). Shared by hop-cpu.ts and peers-stdio.ts.
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ServerCommand } from '@toolplane/fixtures';

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const probe = pathToFileURL(fileURLToPath(new URL('./cpu-probe.ts', import.meta.url))).href;

/**
 * `middle`'s arguments with cpu-probe.ts preloaded, after tsx (which loads it).
 * @throws Error when `middle` does not run under tsx (`--import <tsx>`).
 */
export function probed(middle: ServerCommand): string[] {
  const at = middle.args.indexOf(tsx) + 1;
  if (at === 0) throw new Error('the middle process must run under tsx');
  return [...middle.args.slice(0, at), '--import', probe, ...middle.args.slice(at)];
}

/**
 * Reads a probed process's CPU time (µs) by signalling it and awaiting its `CPU` line on
 * `stderr`; its other stderr lines are passed on to this process's.
 */
export function cpuReader(pid: number, stderr: Readable): () => Promise<number> {
  const waiting: ((us: number) => void)[] = [];
  let buffered = '';
  stderr.setEncoding('utf8');
  stderr.on('data', (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const match = /^CPU (\d+)$/.exec(line);
      if (match === null) process.stderr.write(`${line}\n`);
      else waiting.shift()?.(Number(match[1]));
    }
  });
  return () =>
    new Promise((resolve) => {
      waiting.push(resolve);
      process.kill(pid, 'SIGUSR2');
    });
}
