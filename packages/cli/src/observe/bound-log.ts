// What `serve` logs when new connections meet the gateway's connection bounds: the first at
// once, naming its source, then at most one line a window that counts the rest, so that a flood
// of refused connections writes a line every ten seconds and not one per connection.
import type { ConnectionBoundRecord } from '@toolplane/gateway';

/**
 * How a bound's lines are written: a refusal is a warning, a connection that gave way is not.
 * `fields` are a JSON line's extra fields (serve-log.ts, which uses this file, writes them).
 */
export type BoundLineWriter = (
  level: 'info' | 'warn',
  message: string,
  fields: Readonly<Record<string, unknown>>,
) => void;

/** How long one summary line covers. */
export const BOUND_LOG_WINDOW_MS = 10_000;

/** At most this many sources are counted in a window; the rest count in the totals only. */
const MAX_SOURCES = 1_000;

type Bound = ConnectionBoundRecord['bound'];
type Outcome = ConnectionBoundRecord['outcome'];

/** The configuration key of each bound, which is what an operator would raise. */
const OPTION: Readonly<Record<Bound, string>> = {
  connections: 'http.maxConnections',
  source: 'http.maxConnectionsPerSource',
};

const from = (source: string | undefined): string =>
  source === undefined ? 'a trusted proxy' : source;

/** The line of one connection that met a bound. */
function oneLine(record: ConnectionBoundRecord): string {
  const { bound, outcome } = record;
  const source = from(record.source);
  const option = `(${OPTION[bound]})`;
  if (outcome === 'gave_way') {
    return bound === 'connections'
      ? `the longest idle connection gave way to one from ${source} ${option}`
      : `the longest idle connection of ${source} gave way to a new one of its own ${option}`;
  }
  const holder = bound === 'connections' ? 'the gateway' : source;
  const why = `${holder} holds as many as it may, none idle`;
  return `a connection from ${source} was refused: ${why} ${option}`;
}

/** What {@link createBoundLog} makes. */
export interface BoundLog {
  /** Hears one connection that met a bound: a `GatewayObserver`'s `connectionBound`. */
  readonly hear: (record: ConnectionBoundRecord) => void;
  /**
   * Writes the summary of the window so far, when it counted any, and ends the spell: for a
   * stop, so that the connections of the last window are not lost with the process.
   */
  readonly flush: () => void;
}

/**
 * Hears the gateway's connection bounds and writes them through `write`: the first in a quiet
 * spell at once; while more come, one summary per `windowMs` with the counts by bound and outcome
 * and the source that met them most. A window with none ends the spell. The timer does not keep
 * the process alive.
 */
export function createBoundLog(write: BoundLineWriter, windowMs = BOUND_LOG_WINDOW_MS): BoundLog {
  let timer: NodeJS.Timeout | undefined;
  let windowStart = 0;
  // By outcome, then bound: the shape of the summary's `counts` field.
  let counts: Partial<Record<Outcome, Partial<Record<Bound, number>>>> = {};
  let total = 0;
  const bySource = new Map<string, number>();

  /** Writes the summary of the window so far, `ms` long, and empties it: false if it had none. */
  const summarise = (ms: number): boolean => {
    if (total === 0) return false;
    const parts: string[] = [];
    for (const [outcome, bounds] of Object.entries(counts) as [Outcome, Record<Bound, number>][]) {
      const what = outcome === 'refused' ? 'refused' : 'gave way';
      for (const [bound, count] of Object.entries(bounds) as [Bound, number][]) {
        parts.push(`${String(count)} ${what} (${OPTION[bound]})`);
      }
    }
    let top: [string, number] | undefined;
    for (const entry of bySource) if (top === undefined || entry[1] > top[1]) top = entry;
    const seconds = Math.round(ms / 100) / 10;
    const most = top === undefined ? '' : `; most from ${top[0]} (${String(top[1])})`;
    write(
      counts.refused === undefined ? 'info' : 'warn',
      `connection bounds in the last ${String(seconds)} s: ${parts.join(', ')}${most}`,
      {
        kind: 'connection.bounds',
        seconds,
        counts,
        ...(top === undefined ? {} : { topSource: top[0], topCount: top[1] }),
      },
    );
    counts = {};
    total = 0;
    bySource.clear();
    return true;
  };

  // A window that summarised some starts the next; one with none ends the spell.
  const startWindow = (): void => {
    windowStart = Date.now();
    timer = setTimeout(() => {
      timer = undefined;
      if (summarise(windowMs)) startWindow();
    }, windowMs).unref();
  };

  const hear = (record: ConnectionBoundRecord): void => {
    if (timer === undefined) {
      write(record.outcome === 'refused' ? 'warn' : 'info', oneLine(record), {
        kind: 'connection.bound',
        bound: record.bound,
        outcome: record.outcome,
        ...(record.source === undefined ? {} : { source: record.source }),
      });
      startWindow();
      return;
    }
    const bounds = (counts[record.outcome] ??= {});
    bounds[record.bound] = (bounds[record.bound] ?? 0) + 1;
    total++;
    const source = from(record.source);
    const seen = bySource.get(source);
    if (seen !== undefined) bySource.set(source, seen + 1);
    else if (bySource.size < MAX_SOURCES) bySource.set(source, 1);
  };

  const flush = (): void => {
    if (timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
    // A tenth of a second at least: a stop straight after a line still covers some time.
    summarise(Math.max(100, Date.now() - windowStart));
  };

  return { hear, flush };
}
