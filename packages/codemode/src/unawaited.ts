import type { LogEntry } from './protocol.js';

/**
 * The warning a run's logs end with when its program returned without awaiting some of its tool
 * calls (`ids`, one per call): a call not yet sent never ran, one running was cancelled, and
 * neither shows in the value, so the model (which reads the logs) learns it from this alone.
 * `undefined` when there were none. `paths` maps IDs to where the program calls them.
 */
export function unawaitedNote(
  ids: readonly string[],
  paths: ReadonlyMap<string, string>,
): LogEntry | undefined {
  if (ids.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const id of ids) {
    const path = paths.get(id) ?? id;
    counts.set(path, (counts.get(path) ?? 0) + 1);
  }
  const list = [...counts]
    .map(([path, count]) => (count === 1 ? path : `${path} ×${String(count)}`))
    .join(', ');
  const calls = ids.length === 1 ? 'a tool call' : `${String(ids.length)} tool calls`;
  return {
    level: 'warn',
    text: `the program returned without awaiting ${calls} (${list}): a call not yet sent never ran and one running was cancelled; await every call (e.g. await Promise.all(...)) before returning`,
  };
}
