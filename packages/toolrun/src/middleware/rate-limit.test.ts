import { beforeEach, describe, expect, it } from 'vitest';
import { createLocalBench, rejection, type LocalBench } from '../testing/helpers.js';
import { rateLimit } from './rate-limit.js';

let bench: LocalBench;
let define: LocalBench['define'];
let runnerWith: LocalBench['runnerWith'];

beforeEach(() => {
  bench = createLocalBench();
  ({ define, runnerWith } = bench);
});

describe('rateLimit', () => {
  it('rejects with rate_limited once the limit is used up, per tool', async () => {
    const a = define('a', () => 'a');
    const b = define('b', () => 'b');
    const runner = runnerWith(rateLimit({ limit: 2, interval: 60_000 }));
    await runner.run(a);
    await runner.run(a);
    const error = await rejection(runner.run(a));
    expect(error.code).toBe('rate_limited');
    expect(error.toolId).toBe(a);
    expect((await runner.run(b)).structured).toBe('b');
  });

  it('counts per backend when asked to', async () => {
    bench.index.registerTool(
      { name: 'one', namespace: 'mw', inputSchema: { type: 'object' } },
      { kind: 'local', local: { name: 'shared' } },
    );
    bench.index.registerTool(
      { name: 'two', namespace: 'mw', inputSchema: { type: 'object' } },
      { kind: 'local', local: { name: 'shared' } },
    );
    bench.registry.register('shared', () => 'ok');
    const runner = runnerWith(rateLimit({ limit: 1, interval: 60_000, key: 'backend' }));
    await runner.run('mw:one');
    expect((await rejection(runner.run('mw:two'))).code).toBe('rate_limited');
  });

  it('refills tokens as time passes', async () => {
    let now = 0;
    const id = define('a', () => 'a');
    const runner = runnerWith(rateLimit({ limit: 1, interval: 1000, now: () => now }));
    await runner.run(id);
    expect((await rejection(runner.run(id))).code).toBe('rate_limited');
    now = 1000;
    expect((await runner.run(id)).structured).toBe('a');
  });
});
