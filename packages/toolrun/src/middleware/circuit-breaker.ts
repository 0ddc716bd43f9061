import {
  backendKey,
  checkCount,
  optionKeys,
  refuseUnknownOptions,
  ToolError,
} from '@toolplane/toolmodel';
import type { Middleware } from '../types.js';
import { checkPositive } from './options.js';

/** Options of {@link circuitBreaker}. */
export interface CircuitBreakerOptions {
  /** Consecutive failures of a backend that open its circuit (default 5). */
  readonly failures?: number;
  /** Milliseconds an open circuit rejects calls before letting one trial call through (default 30 000). */
  readonly resetAfter?: number;
  /** Clock in milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

interface Circuit {
  failures: number;
  /** When the circuit opened; `undefined` while closed. */
  openedAt: number | undefined;
  /** A half-open trial call is in flight. */
  trial: boolean;
}

// Failures that say something about the backend's health; a cancelled or rate-limited call
// does not.
const COUNTED = new Set(['execution', 'timeout']);

function counts(error: unknown): boolean {
  return !ToolError.isInstance(error) || COUNTED.has(error.code);
}

const KNOWN = optionKeys<CircuitBreakerOptions>({ failures: true, resetAfter: true, now: true });
// Names other circuit breakers use, and what they are here.
const INSTEAD = {
  threshold: 'did you mean "failures"? (failures in a row that open the circuit)',
  failureThreshold: 'did you mean "failures"? (failures in a row that open the circuit)',
  cooldown: 'did you mean "resetAfter"?',
  resetTimeout: 'did you mean "resetAfter"?',
};

/**
 * Stops calling a backend that keeps failing: after `failures` consecutive `execution` or
 * `timeout` failures its circuit opens and calls fail at once with `circuit_open`; after
 * `resetAfter` milliseconds one trial call goes through, and its success closes the circuit
 * (its failure opens it again). Circuits are kept per backend ({@link backendKey}).
 *
 * @throws {ToolError} `invalid_argument` for an unknown option or a non-positive `failures` or
 * `resetAfter`.
 */
export function circuitBreaker(options: CircuitBreakerOptions = {}): Middleware {
  refuseUnknownOptions(options, KNOWN, 'circuitBreaker', { instead: INSTEAD });
  const threshold = options.failures ?? 5;
  const resetAfter = options.resetAfter ?? 30_000;
  checkCount(threshold, 'circuitBreaker({ failures })');
  checkPositive(resetAfter, 'circuitBreaker({ resetAfter })');
  const now = options.now ?? Date.now;
  const circuits = new Map<string, Circuit>();

  return (next) => async (call) => {
    const key = backendKey(call.backend);
    let circuit = circuits.get(key);
    if (circuit === undefined) {
      circuit = { failures: 0, openedAt: undefined, trial: false };
      circuits.set(key, circuit);
    }
    let isTrial = false;
    if (circuit.openedAt !== undefined) {
      const openFor = now() - circuit.openedAt;
      if (openFor < resetAfter || circuit.trial) {
        const wait = Math.max(0, Math.ceil(resetAfter - openFor));
        throw new ToolError(
          'circuit_open',
          `backend ${key} of tool "${call.toolId}" failed ${circuit.failures} times in a row; calls are paused${circuit.trial ? ' while a trial call runs' : `, next trial in ${wait} ms`}`,
          { toolId: call.toolId, backend: call.backend, op: 'execute' },
        );
      }
      circuit.trial = isTrial = true;
    }
    try {
      const result = await next(call);
      circuit.failures = 0;
      circuit.openedAt = undefined;
      return result;
    } catch (error) {
      if (counts(error) && call.signal?.aborted !== true) {
        circuit.failures++;
        if (isTrial || circuit.failures >= threshold) circuit.openedAt = now();
      }
      throw error;
    } finally {
      if (isTrial) circuit.trial = false;
    }
  };
}
