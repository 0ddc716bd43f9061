import { describe, expect, it } from 'vitest';
import { ToolError } from './errors.js';
import { checkDuration, MAX_TIMER_MS, optionKeys, refuseUnknownOptions } from './option-checks.js';

function failure(run: () => void): ToolError {
  try {
    run();
  } catch (error) {
    if (ToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

describe('refuseUnknownOptions', () => {
  interface Example {
    readonly retries?: number;
    readonly maxDelay?: number;
  }
  const known = optionKeys<Example>({ retries: true, maxDelay: true });

  it('lets known keys through, whatever their values', () => {
    expect(() => {
      refuseUnknownOptions({ retries: 3, maxDelay: undefined }, known, 'retry');
    }).not.toThrow();
    expect(() => {
      refuseUnknownOptions({}, known, 'retry');
    }).not.toThrow();
  });

  it('names an unknown key with the nearest known one', () => {
    const error = failure(() => {
      refuseUnknownOptions({ retries: 1, maxDelays: 5 }, known, 'retry');
    });
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toBe('retry: unknown option "maxDelays"; did you mean "maxDelay"?');
  });

  it('lists the known keys when none is near, or says where the wish goes instead', () => {
    expect(
      failure(() => {
        refuseUnknownOptions({ attempts: 5 }, known, 'retry');
      }).message,
    ).toBe('retry: unknown option "attempts"; known options: retries, maxDelay');
    const instead = failure(() => {
      refuseUnknownOptions({ attempts: 5 }, known, 'retry', {
        code: 'invalid_config',
        instead: { attempts: 'use retries' },
      });
    });
    expect(instead.code).toBe('invalid_config');
    expect(instead.message).toBe('retry: unknown option "attempts"; use retries');
    expect(
      failure(() => {
        refuseUnknownOptions({ x: 1 }, [], 'nothing');
      }).message,
    ).toBe('nothing: unknown option "x"; it takes no options');
  });

  it('refuses options that are not an object', () => {
    for (const [bad, shown] of [
      [null, 'null'],
      [5, '5'],
      [[], 'an array'],
      ['x', 'the string "x"'],
    ] as const) {
      expect(
        failure(() => {
          refuseUnknownOptions(bad, known, 'retry');
        }).message,
      ).toBe(`retry: options must be an object, got ${shown}`);
    }
  });

  it('quotes a hostile key escaped and cut', () => {
    const message = failure(() => {
      refuseUnknownOptions({ [`a\u001b]0;x\u0007${'b'.repeat(500)}`]: 1 }, known, 'retry');
    }).message;
    expect(message).not.toContain('\u001b');
    expect(message.length).toBeLessThan(200);
  });
});

describe('checkDuration', () => {
  it('accepts a finite number of milliseconds above 0 up to what a timer keeps', () => {
    for (const ms of [0.5, 1, 30_000, MAX_TIMER_MS]) {
      expect(() => {
        checkDuration(ms, 'timeout(ms)');
      }).not.toThrow();
    }
  });

  it('refuses 0, negatives, NaN, infinities, what a timer cannot keep, and non-numbers', () => {
    for (const bad of [0, -1, Number.NaN, Infinity, MAX_TIMER_MS + 1, 1e12, '5', null, {}]) {
      const error = failure(() => {
        checkDuration(bad, 'timeout(ms)');
      });
      expect(error.code).toBe('invalid_argument');
      expect(error.message).toMatch(
        /^timeout\(ms\) must be a number of milliseconds above 0, at most 2147483647/,
      );
    }
    expect(
      failure(() => {
        checkDuration('5', 'timeout(ms)');
      }).message,
    ).toMatch(/got the string "5"$/);
  });

  it('takes 0 when it turns something off, and the code a caller asks for', () => {
    expect(() => {
      checkDuration(0, 'pingIntervalMs', { zero: true });
    }).not.toThrow();
    const error = failure(() => {
      checkDuration(-1, 'pingIntervalMs', { zero: true, code: 'invalid_config' });
    });
    expect(error.code).toBe('invalid_config');
    expect(error.message).toContain('0 or more');
  });

  it('takes only whole numbers when told to', () => {
    expect(() => {
      checkDuration(5, 'busyTimeoutMs', { whole: true });
    }).not.toThrow();
    expect(
      failure(() => {
        checkDuration(1.5, 'busyTimeoutMs', { whole: true });
      }).message,
    ).toMatch(/^busyTimeoutMs must be a whole number of milliseconds above 0, .* got 1\.5$/);
  });
});
