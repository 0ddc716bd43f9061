import { describe, expect, it } from 'vitest';
import {
  checkCount,
  countOr,
  checkDuration,
  MAX_TIMER_MS,
  optionKeys,
  refuseUnknownOptions,
} from './option-checks.js';
import { errorMessageOf } from './testing/error-code.js';

/** The message of the `invalid_argument` that `run` throws. */
const refusal = (run: () => void): string => errorMessageOf(run, 'invalid_argument');

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
    expect(
      refusal(() => {
        refuseUnknownOptions({ retries: 1, maxDelays: 5 }, known, 'retry');
      }),
    ).toBe('retry: unknown option "maxDelays"; did you mean "maxDelay"?');
  });

  it('names the one known key an unknown one begins (a unit or noun left off)', () => {
    const limits = optionKeys<{ maxBodyBytes?: number; maxBodyParts?: number; timeoutMs?: number }>(
      {
        maxBodyBytes: true,
        maxBodyParts: true,
        timeoutMs: true,
      },
    );
    expect(
      refusal(() => {
        refuseUnknownOptions({ timeoutM: 1 }, limits, 'serve');
      }),
    ).toBe('serve: unknown option "timeoutM"; did you mean "timeoutMs"?');
    expect(
      refusal(() => {
        refuseUnknownOptions({ maxBody: 1 }, limits, 'serve');
      }),
    ).toMatch(/; known options: /);
    expect(
      refusal(() => {
        refuseUnknownOptions({ maxBodyB: 1 }, limits, 'serve');
      }),
    ).toBe('serve: unknown option "maxBodyB"; did you mean "maxBodyBytes"?');
  });

  it('lists the known keys when none is near, or says where the wish goes instead', () => {
    expect(
      refusal(() => {
        refuseUnknownOptions({ attempts: 5 }, known, 'retry');
      }),
    ).toBe('retry: unknown option "attempts"; known options: retries, maxDelay');
    expect(
      errorMessageOf(() => {
        refuseUnknownOptions({ attempts: 5 }, known, 'retry', {
          code: 'invalid_config',
          instead: { attempts: 'use retries' },
        });
      }, 'invalid_config'),
    ).toBe('retry: unknown option "attempts"; use retries');
    expect(
      refusal(() => {
        refuseUnknownOptions({ x: 1 }, [], 'nothing');
      }),
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
        refusal(() => {
          refuseUnknownOptions(bad, known, 'retry');
        }),
      ).toBe(`retry: options must be an object, got ${shown}`);
    }
  });

  it('takes no hint from the prototype of its hints', () => {
    expect(
      refusal(() => {
        refuseUnknownOptions(JSON.parse('{"constructor": 1}'), known, 'retry', {
          instead: { attempts: 'use retries' },
        });
      }),
    ).toBe('retry: unknown option "constructor"; known options: retries, maxDelay');
  });

  it('quotes a hostile key escaped and cut', () => {
    const message = refusal(() => {
      refuseUnknownOptions({ [`a\u001b]0;x\u0007${'b'.repeat(500)}`]: 1 }, known, 'retry');
    });
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
      expect(
        refusal(() => {
          checkDuration(bad, 'timeout(ms)');
        }),
      ).toMatch(/^timeout\(ms\) must be a number of milliseconds above 0, at most 2147483647/);
    }
    expect(
      refusal(() => {
        checkDuration('5', 'timeout(ms)');
      }),
    ).toMatch(/got the string "5"$/);
  });

  it('takes 0 when it turns something off, and the code a caller asks for', () => {
    expect(() => {
      checkDuration(0, 'pingIntervalMs', { zero: true });
    }).not.toThrow();
    expect(
      errorMessageOf(() => {
        checkDuration(-1, 'pingIntervalMs', { zero: true, code: 'invalid_config' });
      }, 'invalid_config'),
    ).toContain('0 or more');
  });

  it('takes only whole numbers when told to', () => {
    expect(() => {
      checkDuration(5, 'busyTimeoutMs', { whole: true });
    }).not.toThrow();
    expect(
      refusal(() => {
        checkDuration(1.5, 'busyTimeoutMs', { whole: true });
      }),
    ).toMatch(/^busyTimeoutMs must be a whole number of milliseconds above 0, .* got 1\.5$/);
  });
});

describe('checkCount', () => {
  it('accepts a whole number from its least (1 unless told) to its most', () => {
    for (const [value, check] of [
      [1, {}],
      [Number.MAX_SAFE_INTEGER, {}],
      [0, { min: 0 }],
      [1000, { max: 1000 }],
    ] as const) {
      expect(() => {
        checkCount(value, 'maxCallDepth', check);
      }).not.toThrow();
    }
  });

  it('refuses 0, fractions, NaN, infinities, unsafe integers, out-of-range values and non-numbers', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity, 2 ** 53, '5', null, {}]) {
      expect(
        refusal(() => {
          checkCount(bad, 'maxCallDepth');
        }),
      ).toMatch(/^maxCallDepth must be a whole number, 1 or more, got /);
    }
    expect(
      refusal(() => {
        checkCount(1001, 'maxSteps', { max: 1000 });
      }),
    ).toBe('maxSteps must be a whole number, from 1 to 1000, got 1001');
    expect(
      errorMessageOf(() => {
        checkCount(Number.NaN, 'maxMessageBytes', { unit: 'bytes', code: 'invalid_config' });
      }, 'invalid_config'),
    ).toBe('maxMessageBytes must be a whole number of bytes, 1 or more, got NaN');
  });
});

describe('countOr', () => {
  it('gives the fallback for a count left out, and a count given once checked', () => {
    expect(countOr(undefined, 64, 'batchSize')).toBe(64);
    expect(countOr(undefined, undefined, 'limit')).toBeUndefined();
    expect(countOr(0, 5, 'drainMs', { min: 0 })).toBe(0);
    expect(
      errorMessageOf(
        () => countOr(0, 5, 'maxSessions', { code: 'invalid_config' }),
        'invalid_config',
      ),
    ).toBe('maxSessions must be a whole number, 1 or more, got 0');
    expect(refusal(() => countOr(null, 5, 'retries', { min: 0 }))).toBe(
      'retries must be a whole number, 0 or more, got null',
    );
  });
});
