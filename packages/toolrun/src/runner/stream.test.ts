import type { ToolIndex } from '@toolplane/toolindex';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LocalRegistry } from '../local-registry.js';
import { collect, createLocalRunner, demoTool, localBackend } from '../testing/helpers.js';
import type { StreamEvent } from '../types.js';
import { createRunner } from './runner.js';
import type { Runner } from './types.js';

describe('createRunner().runStream', () => {
  let index: ToolIndex;
  let registry: LocalRegistry;
  let runner: Runner;

  beforeEach(() => {
    ({ index, registry, runner } = createLocalRunner());
  });

  it('yields chunks, progress and a done event stamped with the tool ID', async () => {
    index.registerTool(demoTool('gen'), localBackend('gen'));
    registry.register('gen', async function* (_args, { progress }) {
      progress({ progress: 0, total: 2 });
      yield 'a';
      await Promise.resolve();
      progress({ progress: 1, total: 2 });
      yield 'b';
    });
    const events = await collect(runner.runStream('demo:gen'));
    expect(events.map((e) => e.type)).toEqual(['progress', 'chunk', 'progress', 'chunk', 'done']);
    expect(events.every((e) => e.toolId === 'demo:gen')).toBe(true);
    const done = events.at(-1);
    expect(done?.type === 'done' && done.result.structured).toEqual(['a', 'b']);
  });

  it('yields a single done event for a plain handler', async () => {
    index.registerTool(demoTool('plain'), localBackend('plain'));
    registry.register('plain', () => 42);
    const events = await collect(runner.runStream('demo:plain'));
    expect(events).toHaveLength(1);
    expect(events[0]?.type === 'done' && events[0].result.structured).toBe(42);
  });

  it('yields an error event instead of throwing', async () => {
    const events = await collect(runner.runStream('demo:missing'));
    expect(events).toHaveLength(1);
    expect(events[0]?.type === 'error' && events[0].error.code).toBe('tool_not_found');
  });

  it('yields stream_not_supported for a provider that cannot stream', async () => {
    index.registerTool(demoTool('p'), {
      kind: 'provider',
      provider: { providerId: 'x', toolId: 'p' },
    });
    const streaming = createRunner({
      index,
      provider: { callTool: () => Promise.resolve('never streamed') },
    });
    const events = await collect(streaming.runStream('demo:p'));
    expect(events[0]?.type === 'error' && events[0].error.code).toBe('stream_not_supported');
  });

  it('streams a provider that can stream', async () => {
    index.registerTool(demoTool('p'), {
      kind: 'provider',
      provider: { providerId: 'x', toolId: 'p' },
    });
    const streaming = createRunner({
      index,
      provider: {
        callTool: () => Promise.resolve('unused'),
        async *callToolStream() {
          yield 'x';
          await Promise.resolve();
          yield 'y';
          return 'xy';
        },
      },
    });
    const events = await collect(streaming.runStream('demo:p'));
    expect(events.map((e) => (e.type === 'chunk' ? e.data : e.type))).toEqual(['x', 'y', 'done']);
    const done = events.at(-1);
    expect(done?.type === 'done' && done.result.structured).toBe('xy');
  });

  it('cancels the handler when the consumer breaks out early', async () => {
    index.registerTool(demoTool('endless'), localBackend('endless'));
    let sawAbort!: () => void;
    const aborted = new Promise<void>((resolve) => (sawAbort = resolve));
    let markFinalized!: () => void;
    const finalized = new Promise<void>((resolve) => (markFinalized = resolve));
    registry.register('endless', async function* (_args, { signal }) {
      signal.addEventListener('abort', () => {
        sawAbort();
      });
      try {
        for (let i = 0; ; i++) {
          yield i;
          await Promise.resolve();
        }
      } finally {
        markFinalized();
      }
    });
    const seen: unknown[] = [];
    for await (const event of runner.runStream('demo:endless')) {
      if (event.type === 'chunk') seen.push(event.data);
      if (seen.length === 3) break;
    }
    await aborted;
    expect(seen).toEqual([0, 1, 2]);
    await finalized;
  });

  it('ends with a cancelled error event when the caller’s signal aborts', async () => {
    index.registerTool(demoTool('hang'), localBackend('hang'));
    registry.register('hang', async function* (_args, { signal }) {
      yield 'first';
      await new Promise((resolve) => {
        signal.addEventListener('abort', resolve);
      });
    });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    for await (const event of runner.runStream('demo:hang', {}, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'chunk') controller.abort();
    }
    const last = events.at(-1);
    expect(last?.type === 'error' && last.error.code).toBe('cancelled');
  });
});
