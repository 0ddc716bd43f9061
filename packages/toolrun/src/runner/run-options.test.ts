import { describe, expect, it } from 'vitest';
import {
  collect,
  createLocalRunner,
  demoTool,
  localBackend,
  rejection,
} from '../testing/helpers.js';
import type { RunOptions } from '../types.js';

function echoRunner(calls: unknown[] = []) {
  const { index, registry, runner } = createLocalRunner();
  index.registerTool(demoTool('echo'), localBackend('echo'));
  registry.register('echo', (args) => {
    calls.push(args);
    return args;
  });
  return runner;
}

// What JavaScript callers (and code that lost its types) pass by mistake.
const badOptions: readonly unknown[] = [
  'fast',
  42,
  null,
  [],
  { signal: {} },
  { signal: 'abort' },
  { onProgress: 5 },
  { onProgress: {} },
];

describe('run, runStream and runChain given wrong options', () => {
  it('fail run with invalid_argument before the tool runs', async () => {
    const calls: unknown[] = [];
    const runner = echoRunner(calls);
    for (const options of badOptions) {
      const error = await rejection(runner.run('demo:echo', {}, options as RunOptions));
      expect(error.code, JSON.stringify(options)).toBe('invalid_argument');
    }
    expect(calls).toEqual([]);
  });

  it('end runStream with one invalid_argument error event', async () => {
    const runner = echoRunner();
    const events = await collect(runner.runStream('demo:echo', {}, { signal: {} as AbortSignal }));
    expect(events.map((event) => event.type)).toEqual(['error']);
    expect(events[0]?.type === 'error' && events[0].error.code).toBe('invalid_argument');
  });

  it('fail runChain with invalid_argument, running no step, for a bad step anywhere', async () => {
    const calls: unknown[] = [];
    const runner = echoRunner(calls);
    const good = { toolId: 'demo:echo', args: {} };
    for (const bad of [null, 42, 'demo:echo', {}, { toolId: 7 }]) {
      const error = await rejection(runner.runChain([good, bad as unknown as typeof good]));
      expect(error.code, JSON.stringify(bad)).toBe('invalid_argument');
    }
    const error = await rejection(runner.runChain([good], { onProgress: 1 } as never));
    expect(error.code).toBe('invalid_argument');
    expect(calls).toEqual([]);
  });

  it('refuse a key the method does not take, naming the one meant, before the tool runs', async () => {
    const calls: unknown[] = [];
    const runner = echoRunner(calls);
    const controller = new AbortController();
    const misspelt = await rejection(
      runner.run('demo:echo', {}, { sigal: controller.signal } as unknown as RunOptions),
    );
    expect(misspelt.code).toBe('invalid_argument');
    expect(misspelt.message).toBe('run: unknown option "sigal"; did you mean "signal"?');
    const chained = await rejection(
      runner.runChain([{ toolId: 'demo:echo' }], { idempotent: true } as never),
    );
    expect(chained.message).toBe(
      'runChain: unknown option "idempotent"; known options: signal, onProgress',
    );
    const events = await collect(
      runner.runStream('demo:echo', {}, { onProgress: () => undefined } as never),
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.type === 'error' && events[0].error.message).toBe(
      'runStream: unknown option "onProgress"; runStream yields progress as events of the stream ({ type: "progress" })',
    );
    expect(calls).toEqual([]);
  });

  it('still take every option of its type, and inherited keys go unread', async () => {
    const runner = echoRunner();
    const options: Required<RunOptions> = {
      signal: new AbortController().signal,
      onProgress: () => undefined,
      meta: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      idempotent: true,
    };
    expect((await runner.run('demo:echo', { a: 1 }, options)).structured).toEqual({ a: 1 });
    const inherited = Object.create({ sigal: 'not read' }) as RunOptions;
    expect((await runner.run('demo:echo', { a: 2 }, inherited)).structured).toEqual({ a: 2 });
  });

  it('still take a real signal and progress listener', async () => {
    const runner = echoRunner();
    const seen: number[] = [];
    const controller = new AbortController();
    const result = await runner.run(
      'demo:echo',
      { a: 1 },
      { signal: controller.signal, onProgress: (event) => seen.push(event.progress) },
    );
    expect(result.structured).toEqual({ a: 1 });
  });
});
