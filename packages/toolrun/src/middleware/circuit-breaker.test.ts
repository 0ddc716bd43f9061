import { beforeEach, describe, expect, it } from 'vitest';
import { createLocalBench, rejection, type LocalBench } from '../testing/helpers.js';
import { circuitBreaker } from './circuit-breaker.js';

let bench: LocalBench;
let define: LocalBench['define'];
let runnerWith: LocalBench['runnerWith'];

beforeEach(() => {
  bench = createLocalBench();
  ({ define, runnerWith } = bench);
});

describe('circuitBreaker', () => {
  it('opens after consecutive failures, then lets a trial call through after resetAfter', async () => {
    let now = 0;
    let healthy = false;
    let calls = 0;
    const id = define('svc', () => {
      calls++;
      if (!healthy) throw new Error('down');
      return 'up';
    });
    const runner = runnerWith(circuitBreaker({ failures: 2, resetAfter: 1000, now: () => now }));
    expect((await rejection(runner.run(id))).code).toBe('execution');
    expect((await rejection(runner.run(id))).code).toBe('execution');
    const open = await rejection(runner.run(id));
    expect(open.code).toBe('circuit_open');
    expect(calls).toBe(2);

    now = 1000;
    expect((await rejection(runner.run(id))).code).toBe('execution');
    expect(calls).toBe(3);
    expect((await rejection(runner.run(id))).code).toBe('circuit_open');

    now = 2000;
    healthy = true;
    expect((await runner.run(id)).structured).toBe('up');
    expect((await runner.run(id)).structured).toBe('up');
  });

  it('does not count validation failures against the backend', async () => {
    const id = define('svc', () => 'ok', { inputSchema: { type: 'object', required: ['x'] } });
    const runner = runnerWith(circuitBreaker({ failures: 1, resetAfter: 60_000 }));
    expect((await rejection(runner.run(id, {}))).code).toBe('validation');
    expect((await runner.run(id, { x: 1 })).structured).toBe('ok');
  });
});
