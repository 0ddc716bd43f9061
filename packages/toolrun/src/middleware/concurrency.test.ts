import { beforeEach, describe, expect, it } from 'vitest';
import { createLocalBench, rejection, deferred, type LocalBench } from '../testing/helpers.js';
import { concurrency } from './concurrency.js';

let bench: LocalBench;
let define: LocalBench['define'];
let runnerWith: LocalBench['runnerWith'];

beforeEach(() => {
  bench = createLocalBench();
  ({ define, runnerWith } = bench);
});

describe('concurrency', () => {
  it('runs at most max calls at once and the rest in arrival order', async () => {
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const gates = Array.from({ length: 5 }, deferred);
    const id = define('work', async (args) => {
      const { n } = args as { n: number };
      running++;
      peak = Math.max(peak, running);
      order.push(n);
      await gates[n]?.promise;
      running--;
      return n;
    });
    const runner = runnerWith(concurrency({ max: 2 }));
    const calls = gates.map((_, n) => runner.run(id, { n }));
    for (const gate of gates) gate.resolve();
    const results = await Promise.all(calls);
    expect(results.map((r) => r.structured)).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('drops a waiting call whose signal aborts, with cancelled', async () => {
    const gate = deferred();
    const started = deferred();
    let calls = 0;
    const id = define('work', async () => {
      calls++;
      started.resolve();
      await gate.promise;
      return 'done';
    });
    const runner = runnerWith(concurrency({ max: 1 }));
    const first = runner.run(id);
    await started.promise;
    const controller = new AbortController();
    const second = runner.run(id, {}, { signal: controller.signal });
    controller.abort();
    expect((await rejection(second)).code).toBe('cancelled');
    gate.resolve();
    expect((await first).structured).toBe('done');
    expect(calls).toBe(1);
    expect((await runner.run(id)).structured).toBe('done');
  });
});
