// What the toolkit itself warns of (a server's tool it cannot hold, a listener that failed),
// said on stderr instead of dropped: once per distinct line, as it repeats with every re-list.
import type { Logger } from '@toolplane/toolkit';

/** Writes one warning or error line, with its fields (a JSON log keeps them apart). */
export type LogLine = (
  level: 'warn' | 'error',
  message: string,
  fields: Readonly<Record<string, unknown>>,
) => void;

/** Distinct lines said before the rest are dropped: a bound on a server that floods. */
const MAX_DISTINCT = 200;

/**
 * A toolkit {@link Logger} for the CLI: its warnings and errors go to `write` (with the cause
 * the toolkit gives as `error` said after the message), each distinct one once; its debug and
 * info lines are left out.
 */
export function toolkitLogger(write: LogLine): Logger {
  const said = new Set<string>();
  const say = (level: 'warn' | 'error', message: string, data: Record<string, unknown> = {}) => {
    const line = typeof data.error === 'string' ? `${message}: ${data.error}` : message;
    if (said.has(line) || said.size >= MAX_DISTINCT) return;
    said.add(line);
    write(level, line, data);
  };
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, data) => {
      say('warn', message, data);
    },
    error: (message, data) => {
      say('error', message, data);
    },
  };
}
