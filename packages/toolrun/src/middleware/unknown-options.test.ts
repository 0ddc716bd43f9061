import { createIndex } from '@toolplane/toolindex';
import { errorMessageOf } from '@toolplane/toolmodel/testing';
import { describe, expect, it } from 'vitest';
import { approval } from '../approval/approval.js';
import { withRateLimit, withTimeout } from '../executor-wrappers.js';
import { createRunner } from '../runner/runner.js';
import type { ToolExecutor } from '../tool-executor.js';
import { audit } from './audit.js';
import { circuitBreaker } from './circuit-breaker.js';
import { concurrency } from './concurrency.js';
import { rateLimit } from './rate-limit.js';
import { retry } from './retry.js';

/** The message of the `invalid_argument` that `build` throws. */
const messageOf = (build: () => unknown): string => errorMessageOf(build, 'invalid_argument');

const executor: ToolExecutor = {
  invoke: () => Promise.reject(new Error('never invoked here')),
};
const ask = () => Promise.resolve('accept' as const);

// From JavaScript, or a spread of a wider object, a misspelled or guessed option used to be
// ignored: `retry({ attempts: 5 })` retried twice, as if told nothing.
describe('middleware options', () => {
  it('refuse a key they do not know, with the nearest one or where the wish goes', () => {
    const cases: [() => unknown, string][] = [
      [() => retry({ attempts: 5 } as never), 'retry: unknown option "attempts"; `retries` counts'],
      [
        () => retry({ maxDelays: 5 } as never),
        'retry: unknown option "maxDelays"; did you mean "maxDelay"?',
      ],
      [
        () => rateLimit({ limit: 1, interval: 1, windowMs: 5 } as never),
        'rateLimit: unknown option "windowMs"; did you mean "interval"?',
      ],
      [
        () => concurrency({ limit: 2 } as never),
        'concurrency: unknown option "limit"; did you mean "max"?',
      ],
      [
        () => circuitBreaker({ threshold: 3 } as never),
        'circuitBreaker: unknown option "threshold"; did you mean "failures"?',
      ],
      [
        () => audit(() => undefined, { arg: 'omit' } as never),
        'audit: unknown option "arg"; did you mean "args"?',
      ],
      [
        () => approval({ ask, timeout: 5 } as never),
        'approval: unknown option "timeout"; did you mean "timeoutMs"?',
      ],
      [
        () => withRateLimit(executor, { limit: 1, interval: 1, burst: 2 } as never),
        'withRateLimit(executor, { limit, interval }): unknown option "burst"; known options: limit, interval, key, now',
      ],
    ];
    for (const [build, start] of cases) expect(messageOf(build)).toContain(start);
  });

  it('refuse options that are not an object', () => {
    expect(messageOf(() => retry(null as never))).toBe(
      'retry: options must be an object, got null',
    );
    expect(messageOf(() => concurrency(4 as never))).toBe(
      'concurrency: options must be an object, got 4',
    );
  });

  it('refuse a delay a timer cannot keep (it would fire at once)', () => {
    expect(messageOf(() => retry({ maxDelay: 2 ** 31 }))).toContain('retry({ maxDelay }) must be');
    expect(messageOf(() => approval({ ask, timeoutMs: 1e12 }))).toContain(
      'approval({ timeoutMs }) must be a number of milliseconds above 0, at most 2147483647',
    );
    expect(messageOf(() => withTimeout(executor, 2 ** 31))).toContain('withTimeout(executor, ms)');
  });
});

describe('createRunner and createIndex options', () => {
  it('refuse a key they do not know', () => {
    expect(messageOf(() => createRunner({ tools: [] } as never))).toBe(
      'createRunner: unknown option "tools"; register tools in an index and pass it: createRunner({ index })',
    );
    expect(messageOf(() => createRunner({ middlewares: [] } as never))).toBe(
      'createRunner: unknown option "middlewares"; did you mean "middleware"?',
    );
    expect(messageOf(() => createIndex({ selector: () => undefined } as never))).toContain(
      'createIndex: unknown option "selector"',
    );
  });
});
