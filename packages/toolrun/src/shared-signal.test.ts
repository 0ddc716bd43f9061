// One AbortSignal for many concurrent calls (an agent's run, a request's lifetime) is how callers
// use the runner. Node 20 warns of a leak at the 11th listener on one signal, so every step a
// call takes (the runner's race, the timeout and retry wrappers, a queue for a slot, a stream)
// must share one listener on it, take it off when the calls end, and still cancel each of them.
import { getEventListeners } from 'node:events';
import { createIndex } from '@toolplane/toolindex';
import type { Tool } from '@toolplane/toolmodel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalRegistry } from './local-registry.js';
import { concurrency } from './middleware/concurrency.js';
import { retry } from './middleware/retry.js';
import { timeout } from './middleware/timeout.js';
import { createRunner } from './runner/runner.js';
import type { StreamEvent } from './types.js';

const CALLS = 30;
const echo: Tool = { name: 'echo', namespace: 'sig', inputSchema: { type: 'object' } };
const hang: Tool = { name: 'hang', namespace: 'sig', inputSchema: { type: 'object' } };

function runnerWithSlots(slots: number) {
  const index = createIndex();
  index.registerTool(echo, { kind: 'local', local: { name: 'echo' } });
  index.registerTool(hang, { kind: 'local', local: { name: 'hang' } });
  const local = createLocalRegistry()
    .register('echo', async (args) => {
      await new Promise((resolve) => setImmediate(resolve));
      return args;
    })
    // Ignores its signal: only the runner's race can end its call.
    .register('hang', () => new Promise(() => undefined));
  return createRunner({
    index,
    local,
    middleware: [
      timeout(60_000),
      retry({ retries: 2, minDelay: 1, maxDelay: 1 }),
      concurrency({ max: slots }),
    ],
  });
}

const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

let warnings: Error[];
const onWarning = (warning: Error): void => {
  warnings.push(warning);
};
beforeEach(() => {
  warnings = [];
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
});

async function noLeakWarning(): Promise<void> {
  // Node emits its warnings a tick after the listener that crossed the line.
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
}

describe('one signal shared by concurrent calls', () => {
  it('carries one listener while they run and queue for slots, and none after', async () => {
    const runner = runnerWithSlots(4);
    const controller = new AbortController();
    const calls = Array.from({ length: CALLS }, (_, i) =>
      runner.run('sig:echo', { i }, { signal: controller.signal }),
    );
    expect(listeners(controller.signal)).toBe(1);
    const results = await Promise.all(calls);
    expect(results.map((result) => result.structured)).toEqual(
      Array.from({ length: CALLS }, (_, i) => ({ i })),
    );
    expect(listeners(controller.signal)).toBe(0);
    await noLeakWarning();
  });

  it('cancels every call, running or queued, when it aborts', async () => {
    const runner = runnerWithSlots(4);
    const controller = new AbortController();
    const calls = Array.from({ length: CALLS }, () =>
      runner.run('sig:hang', {}, { signal: controller.signal }).then(
        () => 'finished',
        (error: unknown) => (error as { code?: string }).code,
      ),
    );
    expect(listeners(controller.signal)).toBe(1);
    controller.abort();
    expect(await Promise.all(calls)).toEqual(Array.from({ length: CALLS }, () => 'cancelled'));
    expect(listeners(controller.signal)).toBe(0);
    await noLeakWarning();
  });

  it('carries one listener for concurrent streams, each ending in its own event', async () => {
    const runner = runnerWithSlots(CALLS);
    const controller = new AbortController();
    const streams = Array.from({ length: CALLS }, async (_, i) => {
      const events: StreamEvent[] = [];
      for await (const event of runner.runStream(
        'sig:echo',
        { i },
        { signal: controller.signal },
      )) {
        events.push(event);
      }
      return events.at(-1)?.type;
    });
    expect(await Promise.all(streams)).toEqual(Array.from({ length: CALLS }, () => 'done'));
    expect(listeners(controller.signal)).toBe(0);
    await noLeakWarning();
  });
});

describe('a call made without a signal', () => {
  it('keeps none of the listeners its handler leaves on its signal, which never aborts', async () => {
    const seen = new Set<AbortSignal>();
    let heard = 0;
    const index = createIndex();
    index.registerTool(echo, { kind: 'local', local: { name: 'listen' } });
    const local = createLocalRegistry().register('listen', (_args, { signal }) => {
      // Listening and never letting go, as handlers often do.
      signal.addEventListener('abort', () => (heard += 1));
      seen.add(signal);
      return signal.aborted;
    });
    const runner = createRunner({ index, local });
    const results = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        i % 2 === 0
          ? runner.run('sig:echo', {})
          : runner.run('sig:echo', {}, { onProgress: () => undefined, meta: { i } }),
      ),
    );
    expect(results.every((result) => result.structured === false)).toBe(true);
    expect([...seen].map(listeners)).toEqual([...seen].map(() => 0));
    expect(heard).toBe(0);
    await noLeakWarning();
  });

  it('keeps the signal in a copy of the context a handler spreads', async () => {
    const index = createIndex();
    index.registerTool(echo, { kind: 'local', local: { name: 'spread' } });
    const local = createLocalRegistry().register('spread', (_args, context) => {
      const copy = { ...context };
      return copy.signal instanceof AbortSignal && copy.signal === context.signal;
    });
    const runner = createRunner({ index, local });
    expect((await runner.run('sig:echo', {})).structured).toBe(true);
    expect((await runner.run('sig:echo', {}, { meta: { a: 1 } })).structured).toBe(true);
  });
});
