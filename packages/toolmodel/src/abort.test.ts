import { describe, expect, it } from 'vitest';
import { raceAbort, throwIfAborted } from './abort.js';
import { ToolError } from './errors.js';
import { errorCodeOf, rejectionCodeOf } from './testing/error-code.js';

describe('throwIfAborted', () => {
  it('throws cancelled with the reason as cause once the signal aborts, not before', () => {
    const controller = new AbortController();
    expect(
      errorCodeOf(() => {
        throwIfAborted(controller.signal);
      }),
    ).toBeUndefined();
    expect(
      errorCodeOf(() => {
        throwIfAborted(undefined);
      }),
    ).toBeUndefined();
    const reason = new Error('stop');
    controller.abort(reason);
    try {
      throwIfAborted(controller.signal);
      expect.unreachable();
    } catch (error) {
      expect(ToolError.isInstance(error) && error.code).toBe('cancelled');
      expect((error as Error).cause).toBe(reason);
    }
  });

  it('throws the error the caller makes', () => {
    const own = new ToolError('timeout', 'late');
    expect(
      errorCodeOf(() => {
        throwIfAborted(AbortSignal.abort(), () => own);
      }),
    ).toBe('timeout');
  });
});

describe('raceAbort', () => {
  it('settles as the work does while the signal stays quiet', async () => {
    const signal = new AbortController().signal;
    await expect(raceAbort(Promise.resolve(5), signal)).resolves.toBe(5);
    const failure = new ToolError('execution', 'broke');
    await expect(raceAbort(Promise.reject(failure), signal)).rejects.toBe(failure);
  });

  it('rejects when the signal aborts, though the work never settles', async () => {
    const controller = new AbortController();
    const raced = raceAbort(new Promise<never>(() => undefined), controller.signal);
    controller.abort();
    expect(await rejectionCodeOf(raced)).toBe('cancelled');
  });

  it('rejects at once for a signal that has already aborted', async () => {
    const raced = raceAbort(new Promise<never>(() => undefined), AbortSignal.abort());
    expect(await rejectionCodeOf(raced)).toBe('cancelled');
  });

  it("hands what the work resolves with after the abort to discard, and rejects with the caller's error", async () => {
    const controller = new AbortController();
    let finish: (value: string) => void = () => undefined;
    const work = new Promise<string>((resolve) => (finish = resolve));
    let discarded: (late: string) => void = () => undefined;
    const late = new Promise<string>((resolve) => (discarded = resolve));
    const raced = raceAbort(work, controller.signal, {
      error: () => new ToolError('timeout', 'late'),
      discard: (value) => {
        discarded(value);
      },
    });
    controller.abort();
    expect(await rejectionCodeOf(raced)).toBe('timeout');
    finish('connection');
    expect(await late).toBe('connection');
  });
});
