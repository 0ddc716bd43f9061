import type { ToolIndex } from '@toolplane/toolindex';
import { beforeEach, describe, expect, it } from 'vitest';
import { ChainError } from '../errors.js';
import type { LocalRegistry } from '../local-registry.js';
import { createLocalRunner, demoTool, localBackend, rejection } from '../testing/helpers.js';
import type { Runner } from './types.js';

describe('createRunner().runChain', () => {
  let index: ToolIndex;
  let registry: LocalRegistry;
  let runner: Runner;

  beforeEach(() => {
    ({ index, registry, runner } = createLocalRunner());
    index.registerTool(demoTool('inc'), localBackend('inc'));
    index.registerTool(demoTool('echo'), localBackend('echo'));
    index.registerTool(demoTool('fail'), localBackend('fail'));
    registry.register('inc', (args) => {
      const { previous, by } = args as { previous?: number; by?: number };
      return (previous ?? 0) + (by ?? 1);
    });
    registry.register('echo', (args) => args);
    registry.register('fail', () => {
      throw new Error('step failed');
    });
  });

  it('passes each result on as args.previous and returns every step', async () => {
    const chain = await runner.runChain([
      { toolId: 'demo:inc', args: { by: 5 } },
      { toolId: 'demo:inc', usePrevious: true },
      { toolId: 'demo:inc', args: { by: 10 }, usePrevious: true },
    ]);
    expect(chain.steps.map((s) => s.structured)).toEqual([5, 6, 16]);
    expect(chain.result.structured).toBe(16);
  });

  it('overwrites a given previous with a copy and never touches the step’s args', async () => {
    const args = Object.freeze({ previous: 'mine', keep: true });
    const chain = await runner.runChain([
      { toolId: 'demo:inc', args: { by: 1 } },
      { toolId: 'demo:echo', args, usePrevious: true },
    ]);
    expect(chain.result.structured).toEqual({ previous: 1, keep: true });
    expect(args).toEqual({ previous: 'mine', keep: true });
  });

  it('sets previous even when the previous result is undefined', async () => {
    registry.register('nothing', () => undefined);
    index.registerTool(demoTool('nothing'), localBackend('nothing'));
    const chain = await runner.runChain([
      { toolId: 'demo:nothing' },
      { toolId: 'demo:echo', usePrevious: true },
    ]);
    expect(chain.result.structured).toHaveProperty('previous', undefined);
  });

  it('stops at the first failure with a ChainError carrying the step index and partial steps', async () => {
    let after = 0;
    registry.register('echo', () => ++after);
    const error = await rejection(
      runner.runChain([{ toolId: 'demo:inc' }, { toolId: 'demo:fail' }, { toolId: 'demo:echo' }]),
    );
    if (!ChainError.isInstance(error)) throw new Error('expected a ChainError');
    const chainError = error;
    expect(chainError.code).toBe('execution');
    expect(chainError.stepIndex).toBe(1);
    expect(chainError.steps.map((s) => s.structured)).toEqual([1]);
    expect(chainError.toolId).toBe('demo:fail');
    expect(after).toBe(0);
  });

  it('stops between steps with cancelled when the signal aborts', async () => {
    const controller = new AbortController();
    registry.register('abort', () => {
      controller.abort();
      return 'ran';
    });
    index.registerTool(demoTool('abort'), localBackend('abort'));
    const error = await rejection(
      runner.runChain([{ toolId: 'demo:abort' }, { toolId: 'demo:inc' }], {
        signal: controller.signal,
      }),
    );
    if (!ChainError.isInstance(error)) throw new Error('expected a ChainError');
    expect(error.code).toBe('cancelled');
    expect(error.stepIndex).toBe(1);
    expect(error.steps).toHaveLength(1);
  });

  it('reports progress once per step, in order', async () => {
    const events: { progress: number; total?: number; stepIndex: number }[] = [];
    await runner.runChain([{ toolId: 'demo:inc' }, { toolId: 'demo:inc', usePrevious: true }], {
      onProgress: ({ progress, total, stepIndex }) => events.push({ progress, total, stepIndex }),
    });
    expect(events).toEqual([
      { progress: 1, total: 2, stepIndex: 0 },
      { progress: 2, total: 2, stepIndex: 1 },
    ]);
  });

  it('rejects an empty chain with invalid_argument', async () => {
    expect((await rejection(runner.runChain([]))).code).toBe('invalid_argument');
  });
});
