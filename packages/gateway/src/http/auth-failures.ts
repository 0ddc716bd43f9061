// Failed authentications per source: past a budget, a source is refused for a while (longer each
// time it keeps failing) without its credentials being checked, so a weak token cannot be guessed
// at the speed the server answers, and every other source is served as before.
import { countOr } from '@toolplane/toolmodel';
import { ToolError } from '@toolplane/toolkit';
import { CONFIG_COUNT } from '../option-checks.js';

/** Tuning of the limit on failed authentications; see `serveHttp`'s `authFailureLimit`. */
export interface AuthFailureLimitOptions {
  /** Failed authentications a source may make within `windowMs` (default 10). */
  readonly maxFailures?: number;
  /** The window those failures are counted in, in milliseconds (default 60,000). */
  readonly windowMs?: number;
  /**
   * How long a source is refused once it has used its budget, in milliseconds (default 60,000).
   * Each failure after a refusal ends doubles it, up to `maxRefusalMs`.
   */
  readonly refusalMs?: number;
  /**
   * The longest refusal (default 900,000: 15 minutes); also how long after its last refusal a
   * source's record is kept, so that waiting one out does not restore the whole budget.
   */
  readonly maxRefusalMs?: number;
  /** Most sources remembered at once (default 10,000); the least recently failed makes room. */
  readonly maxSources?: number;
}

/** The limit's settings, checked, with their defaults. */
interface Settings {
  readonly maxFailures: number;
  readonly windowMs: number;
  readonly refusalMs: number;
  readonly maxRefusalMs: number;
  readonly maxSources: number;
}

/** What is remembered of one source that failed. */
interface Entry {
  /** Failures in the current window (before any refusal). */
  failures: number;
  windowStart: number;
  /** Refusals so far: each one after the first is twice as long as the one before. */
  refusals: number;
  /** Refused until then (epoch ms); 0 when not refused. */
  refusedUntil: number;
  /** When the record is forgotten, as if the source had never failed. */
  forgetAt: number;
}

/**
 * Counts failed authentications per source (a string key: an address, or a forwarded client's)
 * and says how long a source is refused. Memory is bounded by `maxSources`, records expire as
 * they are read (no timers), and every operation is O(1).
 */
export class AuthFailureLimit {
  readonly #settings: Settings;
  readonly #now: () => number;
  // In order of last failure: the first is the one to evict.
  readonly #entries = new Map<string, Entry>();

  /**
   * @param options.now The clock, in epoch milliseconds (default `Date.now`).
   * @throws {ToolError} `invalid_config` for a bound that is not a positive integer, or a
   * `maxRefusalMs` below `refusalMs`.
   */
  constructor(options: AuthFailureLimitOptions & { readonly now?: () => number } = {}) {
    this.#settings = checkedSettings(options);
    this.#now = options.now ?? Date.now;
  }

  /** How many sources are remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** Seconds until `source` may authenticate again (at least 1); 0 when it may now. */
  retryAfter(source: string): number {
    const entry = this.#live(source);
    if (entry === undefined) return 0;
    const wait = entry.refusedUntil - this.#now();
    return wait > 0 ? Math.ceil(wait / 1000) : 0;
  }

  /** Counts a failed authentication by `source` (ignored while it is refused). */
  failed(source: string): void {
    const now = this.#now();
    const { maxFailures, windowMs, refusalMs, maxRefusalMs, maxSources } = this.#settings;
    const entry = this.#live(source) ?? {
      failures: 0,
      windowStart: now,
      refusals: 0,
      refusedUntil: 0,
      forgetAt: 0,
    };
    if (entry.refusedUntil > now) return;
    if (entry.refusals > 0) {
      // Failing again after a refusal: refused again at once, for twice as long.
      this.#refuse(entry, now, Math.min(refusalMs * 2 ** entry.refusals, maxRefusalMs));
    } else {
      if (now - entry.windowStart >= windowMs) {
        entry.windowStart = now;
        entry.failures = 0;
      }
      entry.failures++;
      if (entry.failures >= maxFailures) this.#refuse(entry, now, refusalMs);
      else entry.forgetAt = entry.windowStart + windowMs;
    }
    // Re-inserted, so the map stays in order of last failure.
    this.#entries.delete(source);
    this.#entries.set(source, entry);
    while (this.#entries.size > maxSources) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  /** Forgets `source`'s failures: it authenticated. */
  succeeded(source: string): void {
    this.#entries.delete(source);
  }

  /**
   * Takes back one failure of `source` counted before a check that ended with no verdict. A
   * failure that used up the budget keeps the refusal it began: only guesses in flight together
   * can reach it, and a check is counted before its verdict to stop exactly those.
   */
  unverified(source: string): void {
    const entry = this.#live(source);
    if (entry !== undefined && entry.failures > 0) entry.failures--;
  }

  #refuse(entry: Entry, now: number, forMs: number): void {
    entry.refusals++;
    entry.failures = 0;
    entry.refusedUntil = now + forMs;
    entry.forgetAt = entry.refusedUntil + this.#settings.maxRefusalMs;
  }

  /** `source`'s record, unless it has expired (then it is dropped). */
  #live(source: string): Entry | undefined {
    const entry = this.#entries.get(source);
    if (entry === undefined) return undefined;
    if (entry.forgetAt > this.#now()) return entry;
    this.#entries.delete(source);
    return undefined;
  }
}

function checkedSettings(options: AuthFailureLimitOptions): Settings {
  const positive = (name: keyof AuthFailureLimitOptions, fallback: number): number =>
    countOr(options[name], fallback, `authFailureLimit.${name}`, CONFIG_COUNT);
  const settings: Settings = {
    maxFailures: positive('maxFailures', 10),
    windowMs: positive('windowMs', 60_000),
    refusalMs: positive('refusalMs', 60_000),
    maxRefusalMs: positive('maxRefusalMs', Math.max(900_000, options.refusalMs ?? 0)),
    maxSources: positive('maxSources', 10_000),
  };
  if (settings.maxRefusalMs < settings.refusalMs) {
    throw new ToolError(
      'invalid_config',
      `authFailureLimit.maxRefusalMs (${String(settings.maxRefusalMs)}) must be at least refusalMs (${String(settings.refusalMs)})`,
    );
  }
  return settings;
}
