import { beforeEach, describe, expect, it } from 'vitest';
import { createLocalBench, rejection, deferred, type LocalBench } from '../testing/helpers.js';
import { MAX_TIMER_MS } from '@toolplane/toolmodel';
import { timeout } from './timeout.js';

let bench: LocalBench;
let define: LocalBench['define'];
let runnerWith: LocalBench['runnerWith'];

beforeEach(() => {
  bench = createLocalBench();
  ({ define, runnerWith } = bench);
});

describe('timeout', () => {
  it('rejects with timeout and aborts the handler’s signal when the call takes too long', async () => {
    const aborted = deferred();
    const id = define('hang', (_args, { signal }) => {
      signal.addEventListener('abort', aborted.resolve);
      return new Promise(() => undefined);
    });
    const error = await rejection(runnerWith(timeout(20)).run(id));
    expect(error.code).toBe('timeout');
    expect(error.toolId).toBe(id);
    await aborted.promise;
  });

  it('passes the result through when the call is fast enough', async () => {
    const id = define('fast', () => 'ok');
    expect((await runnerWith(timeout(10_000)).run(id)).structured).toBe('ok');
  });

  it('still lets the caller cancel', async () => {
    const started = deferred();
    const id = define('hang', () => {
      started.resolve();
      return new Promise(() => undefined);
    });
    const controller = new AbortController();
    const pending = runnerWith(timeout(60_000)).run(id, {}, { signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await rejection(pending)).code).toBe('cancelled');
  });

  it('rejects a non-positive duration with invalid_argument', () => {
    expect(() => timeout(0)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('waits out the longest delay a timer keeps, and refuses a longer one', async () => {
    // Node fires a timer set past 2^31 - 1 ms after 1 ms: such a timeout would end every call.
    const id = define(
      'takes-a-while',
      () => new Promise((resolve) => setTimeout(resolve, 30, 'ok')),
    );
    expect((await runnerWith(timeout(MAX_TIMER_MS)).run(id)).structured).toBe('ok');
    for (const ms of [MAX_TIMER_MS + 1, 1e12, Infinity, Number.NaN]) {
      expect(() => timeout(ms)).toThrow(
        expect.objectContaining({
          code: 'invalid_argument',
          message: expect.stringContaining('at most 2147483647') as unknown,
        }),
      );
    }
  });
});
