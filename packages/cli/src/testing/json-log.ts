// `serve`'s JSON log written into a string, for tests that read its lines.
import { Output } from '../output.js';
import { createServeLog, type LogLevel, type ServeLog } from '../observe/serve-log.js';

/** A JSON `serve` log at `level` and the lines it has written so far, parsed. */
export function jsonServeLog(level: LogLevel = 'info'): {
  lines: () => Record<string, unknown>[];
  log: ServeLog;
} {
  let written = '';
  const output = new Output({
    stdout: { write: () => true },
    stderr: { write: (chunk: string) => (written += chunk) },
    json: false,
    env: {},
  });
  const log = createServeLog({ output, log: { format: 'json', level, arguments: false } });
  const lines = (): Record<string, unknown>[] =>
    written
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { lines, log };
}
