import { describe, expect, it } from 'vitest';
import { ToolError } from '../errors.js';
import { errorCodeOf, errorMessageOf, rejectionCodeOf } from './error-code.js';

const conflict = new ToolError('conflict', 'taken');
const foreign = new RangeError('not ours');

describe('errorCodeOf', () => {
  it('returns the code of a thrown ToolError, and undefined when run returns', () => {
    expect(
      errorCodeOf(() => {
        throw conflict;
      }),
    ).toBe('conflict');
    expect(errorCodeOf(() => 42)).toBeUndefined();
  });

  it('throws on anything thrown that is not a ToolError', () => {
    expect(() =>
      errorCodeOf(() => {
        throw foreign;
      }),
    ).toThrow(foreign);
  });

  it('throws invalid_argument when run returns a promise, without an unhandled rejection', () => {
    const code = errorCodeOf(() =>
      errorCodeOf(() => Promise.reject(new ToolError('cancelled', 'stopped'))),
    );
    expect(code).toBe('invalid_argument');
  });
});

describe('rejectionCodeOf', () => {
  it('resolves to the code of a rejection, a sync throw or an async throw', async () => {
    expect(await rejectionCodeOf(Promise.reject(conflict))).toBe('conflict');
    expect(
      await rejectionCodeOf(() => {
        throw conflict;
      }),
    ).toBe('conflict');
    expect(await rejectionCodeOf(() => Promise.reject(conflict))).toBe('conflict');
  });

  it('resolves to undefined when the work succeeds', async () => {
    expect(await rejectionCodeOf(Promise.resolve(1))).toBeUndefined();
    expect(await rejectionCodeOf(() => 1)).toBeUndefined();
  });

  it('rejects with anything that is not a ToolError', async () => {
    await expect(rejectionCodeOf(Promise.reject(foreign))).rejects.toBe(foreign);
    await expect(
      rejectionCodeOf(() => {
        throw foreign;
      }),
    ).rejects.toBe(foreign);
  });
});

describe('errorMessageOf', () => {
  it('answers the message of a ToolError with the code asked for', () => {
    expect(
      errorMessageOf(() => {
        throw new ToolError('invalid_argument', 'what was wrong');
      }, 'invalid_argument'),
    ).toBe('what was wrong');
  });

  it('throws on anything else: another code, another error, a return', () => {
    const other = new ToolError('timeout', 'late');
    expect(() =>
      errorMessageOf(() => {
        throw other;
      }, 'invalid_argument'),
    ).toThrow(other);
    expect(() => errorMessageOf(() => 1, 'invalid_argument')).toThrow(
      'expected a ToolError with code invalid_argument; run returned',
    );
    expect(() => errorMessageOf(() => Promise.reject(new Error('x')), 'invalid_argument')).toThrow(
      'returned a promise',
    );
  });
});
