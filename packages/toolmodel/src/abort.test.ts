import { describe, expect, it } from 'vitest';
import { getEventListeners } from 'node:events';
import { followSignal, raceAbort, throwIfAborted, whenAborted } from './abort.js';
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

describe('whenAborted', () => {
  const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

  it('keeps one listener on a signal for any number of waiters, each called once, in order', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    const stops = Array.from({ length: 50 }, (_, i) =>
      whenAborted(controller.signal, () => calls.push(i)),
    );
    expect(listeners(controller.signal)).toBe(1);
    stops[3]?.();
    stops[3]?.();
    controller.abort();
    controller.abort();
    expect(calls).toEqual(Array.from({ length: 50 }, (_, i) => i).filter((i) => i !== 3));
    expect(listeners(controller.signal)).toBe(0);
    for (const stop of stops) stop();
  });

  it('takes its listener off when the last waiter stops, and puts one back for the next', () => {
    const controller = new AbortController();
    const first = whenAborted(controller.signal, () => undefined);
    const second = whenAborted(controller.signal, () => undefined);
    first();
    expect(listeners(controller.signal)).toBe(1);
    second();
    expect(listeners(controller.signal)).toBe(0);
    let called = 0;
    whenAborted(controller.signal, () => (called += 1));
    expect(listeners(controller.signal)).toBe(1);
    controller.abort();
    expect(called).toBe(1);
  });

  it('calls a waiter at once on a signal that has already aborted, adding nothing', () => {
    const signal = AbortSignal.abort(new Error('gone'));
    let called = 0;
    const stop = whenAborted(signal, () => (called += 1));
    expect(called).toBe(1);
    expect(listeners(signal)).toBe(0);
    stop();
  });

  it('lets the same function wait twice, and stopping one leaves the other', () => {
    const controller = new AbortController();
    let called = 0;
    const listener = (): void => {
      called += 1;
    };
    const stop = whenAborted(controller.signal, listener);
    whenAborted(controller.signal, listener);
    stop();
    controller.abort();
    expect(called).toBe(1);
  });

  it('runs every waiter when one throws, and throws that error again in a microtask', async () => {
    const controller = new AbortController();
    const thrown = new Error('a listener failed');
    const seen: unknown[] = [];
    const onUncaught = (error: unknown): void => {
      seen.push(error);
    };
    process.prependListener('uncaughtException', onUncaught);
    try {
      let after = 0;
      whenAborted(controller.signal, () => {
        throw thrown;
      });
      whenAborted(controller.signal, () => (after += 1));
      controller.abort();
      expect(after).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(seen).toEqual([thrown]);
    } finally {
      process.removeListener('uncaughtException', onUncaught);
    }
  });

  it('leaves no listener after many concurrent races on one signal, and still cancels them', async () => {
    const controller = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => raceAbort(Promise.resolve(i), controller.signal)),
      );
      expect(listeners(controller.signal)).toBe(0);
      const pending = Array.from({ length: 40 }, () =>
        rejectionCodeOf(() => raceAbort(new Promise<never>(() => undefined), controller.signal)),
      );
      expect(listeners(controller.signal)).toBe(1);
      controller.abort();
      expect(await Promise.all(pending)).toEqual(Array.from({ length: 40 }, () => 'cancelled'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('followSignal', () => {
  it('aborts with the outer reason, at once for an outer already aborted', () => {
    const outer = new AbortController();
    const { controller } = followSignal(outer.signal);
    expect(controller.signal.aborted).toBe(false);
    outer.abort('stop');
    expect(controller.signal.reason).toBe('stop');
    expect(followSignal(outer.signal).controller.signal.reason).toBe('stop');
  });

  it('stops following once unlinked, and leaves the outer signal no listener', () => {
    const outer = new AbortController();
    const { controller, unlink } = followSignal(outer.signal);
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(1);
    unlink();
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0);
    outer.abort('late');
    expect(controller.signal.aborted).toBe(false);
  });

  it('follows nothing without an outer signal', () => {
    const { controller, unlink } = followSignal(undefined);
    unlink();
    expect(controller.signal.aborted).toBe(false);
  });
});
