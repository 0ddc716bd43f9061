import { createIndex, type ToolIndex } from '@toolplane/toolindex';
import { ToolError, type Tool, type ToolBackend } from '@toolplane/toolmodel';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { createLocalRunner, demoTool, localBackend, rejection } from '../testing/helpers.js';
import { createLocalRegistry, type LocalRegistry } from '../local-registry.js';
import { createRunner } from './runner.js';
import type { Runner } from './types.js';
import type { ProgressEvent, ProviderExecutor } from '../types.js';

const addTool: Tool = {
  name: 'add',
  namespace: 'math',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { sum: { type: 'number' } },
    required: ['sum'],
  },
};

describe('createRunner().run with local tools', () => {
  let index: ToolIndex;
  let registry: LocalRegistry;
  let runner: Runner;

  beforeEach(() => {
    ({ index, registry, runner } = createLocalRunner());
    index.registerTool(addTool, localBackend('add'));
    registry.register('add', (args) => {
      const { a, b } = args as { a: number; b: number };
      return { sum: a + b };
    });
  });

  it('returns the handler result with the tool and backend when the call succeeds', async () => {
    const result = await runner.run('math:add', { a: 2, b: 3 });
    expect(result.structured).toEqual({ sum: 5 });
    expect(result.toolId).toBe('math:add');
    expect(result.tool.name).toBe('add');
    expect(result.backend).toEqual(localBackend('add'));
    expect(result.mcpResult).toBeUndefined();
  });

  it('rejects with invalid_tool_id when the ID is empty or malformed', async () => {
    for (const id of ['', 'a:b:c:d', 'bad name', 'ns:', ':name']) {
      const error = await rejection(runner.run(id, {}));
      expect(error.code).toBe('invalid_tool_id');
      expect(error.op).toBe('resolve');
    }
    const notString = await rejection(runner.run(42 as unknown as string));
    expect(notString.code).toBe('invalid_tool_id');
  });

  it('rejects with tool_not_found when neither the index nor a resolver knows the tool', async () => {
    const error = await rejection(runner.run('math:missing', {}));
    expect(error.code).toBe('tool_not_found');
    expect(error.toolId).toBe('math:missing');
    expect(error.op).toBe('resolve');
  });

  it('rejects with validation and the schema errors when the input does not match', async () => {
    const error = await rejection(runner.run('math:add', { a: 'two', b: 3 }));
    expect(error.code).toBe('validation');
    expect(error.op).toBe('validate_input');
    expect(error.backend).toEqual(localBackend('add'));
    expect(error.errors?.length).toBeGreaterThan(0);
    expect(error.errors?.some((e) => e.path.includes('/a'))).toBe(true);
  });

  it('rejects with output_validation when the result does not match the output schema', async () => {
    registry.register('add', () => ({ total: 1 }));
    const error = await rejection(runner.run('math:add', { a: 1, b: 2 }));
    expect(error.code).toBe('output_validation');
    expect(error.op).toBe('validate_output');
    expect(error.errors?.length).toBeGreaterThan(0);
  });

  it('skips validation when it is switched off', async () => {
    registry.register('add', () => ({ total: 1 }));
    const lax = createRunner({ index, local: registry, validate: { input: false, output: false } });
    const result = await lax.run('math:add', { a: 'x' });
    expect(result.structured).toEqual({ total: 1 });
  });

  it('wraps a thrown error as execution with the cause, tool, backend and op', async () => {
    const boom = new Error('boom');
    registry.register('add', () => {
      throw boom;
    });
    const error = await rejection(runner.run('math:add', { a: 1, b: 2 }));
    expect(error.code).toBe('execution');
    expect(error.cause).toBe(boom);
    expect(error.toolId).toBe('math:add');
    expect(error.backend).toEqual(localBackend('add'));
    expect(error.op).toBe('execute');
  });

  it('wraps an async rejection as execution', async () => {
    registry.register('add', () => Promise.reject(new TypeError('nope')));
    const error = await rejection(runner.run('math:add', { a: 1, b: 2 }));
    expect(error.code).toBe('execution');
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it('turns a ToolError from a handler with a code of another stage into execution', async () => {
    registry.register('add', () => {
      throw new ToolError('tool_not_found', 'inner lookup failed');
    });
    const error = await rejection(runner.run('math:add', { a: 1, b: 2 }));
    expect(error.code).toBe('execution');
    expect(ToolError.isInstance(error.cause)).toBe(true);
  });

  it('keeps a handler’s resource_exhausted: a bound the tool itself refused on', async () => {
    registry.register('add', () => {
      throw new ToolError('resource_exhausted', 'the answer would be 128 MB (at most 1 MB)');
    });
    const error = await rejection(runner.run('math:add', { a: 1, b: 2 }));
    expect(error.code).toBe('resource_exhausted');
    expect(error.toolId).toBe('math:add');
  });

  it('keeps a handler’s invalid_argument: a value its schema could not rule out', async () => {
    registry.register('add', () => {
      throw new ToolError('invalid_argument', 'a: 1 is not a prime');
    });
    const error = await rejection(runner.run('math:add', { a: 1, b: 2 }));
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toBe('a: 1 is not a prime');
    expect(error.toolId).toBe('math:add');
    expect(error.op).toBe('execute');
  });

  it('rejects with execution when no handler is registered for the backend', async () => {
    index.registerTool(demoTool('orphan'), localBackend('orphan'));
    const error = await rejection(runner.run('demo:orphan'));
    expect(error.code).toBe('execution');
    expect(error.op).toBe('execute');
  });

  it('passes {} when args are undefined', async () => {
    let seen: unknown;
    index.registerTool(demoTool('peek'), localBackend('peek'));
    registry.register('peek', (args) => {
      seen = args;
      return null;
    });
    await runner.run('demo:peek');
    expect(seen).toEqual({});
  });

  it('never mutates the caller’s args', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.integer(), async (a, b) => {
        const args = Object.freeze({ a, b });
        const result = await runner.run('math:add', args);
        expect(result.structured).toEqual({ sum: a + b });
        expect(args).toEqual({ a, b });
      }),
      { numRuns: 50 },
    );
  });

  it('rejects with cancelled without executing when the signal is already aborted', async () => {
    let calls = 0;
    registry.register('add', () => {
      calls++;
      return { sum: 0 };
    });
    const error = await rejection(
      runner.run('math:add', { a: 1, b: 2 }, { signal: AbortSignal.abort() }),
    );
    expect(error.code).toBe('cancelled');
    expect(calls).toBe(0);
  });

  it('rejects with cancelled as soon as the signal aborts, even if the handler ignores it', async () => {
    index.registerTool(demoTool('hang'), localBackend('hang'));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    registry.register('hang', () => {
      started();
      return new Promise(() => undefined);
    });
    const controller = new AbortController();
    const pending = runner.run('demo:hang', {}, { signal: controller.signal });
    await running;
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe('cancelled');
    expect(error.op).toBe('execute');
  });

  it('hands the handler the signal, meta and a progress reporter', async () => {
    index.registerTool(demoTool('ctx'), localBackend('ctx'));
    registry.register('ctx', (_args, { signal, progress, meta }) => {
      progress({ progress: 1, total: 2 });
      progress({ progress: 2, total: 2, message: 'done' });
      return { aborted: signal.aborted, meta };
    });
    const events: ProgressEvent[] = [];
    const result = await runner.run(
      'demo:ctx',
      {},
      {
        signal: new AbortController().signal,
        meta: { traceId: 't1' },
        onProgress: (e) => events.push(e),
      },
    );
    expect(result.structured).toEqual({ aborted: false, meta: { traceId: 't1' } });
    // The runner's start, then the handler's own reports, and no coarse end on top of them.
    expect(events).toEqual([
      { progress: 0 },
      { progress: 1, total: 2 },
      { progress: 2, total: 2, message: 'done' },
    ]);
  });

  it('tells a listener that a silent local or provider tool began and finished', async () => {
    const events: ProgressEvent[] = [];
    await runner.run('math:add', { a: 1, b: 2 }, { onProgress: (e) => events.push(e) });
    expect(events).toEqual([{ progress: 0 }, { progress: 1, total: 1 }]);

    const providerEvents: ProgressEvent[] = [];
    index.registerTool(demoTool('remote'), {
      kind: 'provider',
      provider: { providerId: 'p', toolId: 'remote' },
    });
    const withProvider = createRunner({
      index,
      local: registry,
      provider: { callTool: () => Promise.resolve({ ok: true }) },
    });
    await withProvider.run('demo:remote', {}, { onProgress: (e) => providerEvents.push(e) });
    expect(providerEvents).toEqual([{ progress: 0 }, { progress: 1, total: 1 }]);

    // A failed call began but did not finish.
    registry.register('add', () => {
      throw new Error('boom');
    });
    const failed: ProgressEvent[] = [];
    await runner
      .run('math:add', { a: 1, b: 2 }, { onProgress: (e) => failed.push(e) })
      .catch(() => undefined);
    expect(failed).toEqual([{ progress: 0 }]);
  });

  it('takes any object with a get as its local handlers', async () => {
    const handlers = new Map([['add', () => ({ sum: 3 })]]);
    const plain = createRunner({ index, local: handlers });
    expect((await plain.run('math:add', { a: 1, b: 2 })).structured).toEqual({ sum: 3 });
    const getOnly = createRunner({ index, local: { get: () => () => ({ sum: 4 }) } });
    expect((await getOnly.run('math:add', { a: 1, b: 2 })).structured).toEqual({ sum: 4 });
  });

  it('collects an async generator’s chunks as the result when it returns nothing', async () => {
    index.registerTool(demoTool('count'), localBackend('count'));
    registry.register('count', async function* () {
      yield 1;
      await Promise.resolve();
      yield 2;
    });
    expect((await runner.run('demo:count')).structured).toEqual([1, 2]);
  });

  it('uses an async generator’s return value as the result when there is one', async () => {
    index.registerTool(demoTool('count'), localBackend('count'));
    registry.register('count', async function* () {
      yield 1;
      await Promise.resolve();
      return 'total';
    });
    expect((await runner.run('demo:count')).structured).toBe('total');
  });

  it('runs many calls concurrently without mixing results', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => runner.run('math:add', { a: i, b: i })),
    );
    expect(results.map((r) => r.structured)).toEqual(
      Array.from({ length: 200 }, (_, i) => ({ sum: 2 * i })),
    );
  });

  it('never calls inherited properties as handlers', async () => {
    for (const name of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
      index.registerTool(demoTool(name), localBackend(name));
      const error = await rejection(runner.run(`demo:${name}`));
      expect(error.code).toBe('execution');
    }
  });
});

describe('createRunner resolution and selection', () => {
  const echo = demoTool('echo');

  it('falls back to resolveTool and resolveBackends when there is no index', async () => {
    const registry = createLocalRegistry().register('echo', (args) => args);
    const runner = createRunner({
      local: registry,
      resolveTool: (id) => (id === 'demo:echo' ? echo : undefined),
      resolveBackends: () => [localBackend('echo')],
    });
    expect((await runner.run('demo:echo', { x: 1 })).structured).toEqual({ x: 1 });
    expect((await rejection(runner.run('demo:other'))).code).toBe('tool_not_found');
  });

  it('falls back to async resolvers when the index does not have the tool', async () => {
    const registry = createLocalRegistry().register('echo', (args) => args);
    const runner = createRunner({
      index: createIndex(),
      local: registry,
      resolveTool: (id) => Promise.resolve(id === 'demo:echo' ? echo : undefined),
      resolveBackends: () => Promise.resolve([localBackend('echo')]),
    });
    expect((await runner.run('demo:echo', { y: 2 })).structured).toEqual({ y: 2 });
  });

  it('rejects with no_backends when the resolved tool has none', async () => {
    const runner = createRunner({ resolveTool: () => echo });
    const error = await rejection(runner.run('demo:echo'));
    expect(error.code).toBe('no_backends');
    expect(error.op).toBe('select');
  });

  it('rejects with no_backends when the selector declines every backend', async () => {
    const index = createIndex();
    index.registerTool(echo, localBackend('echo'));
    const runner = createRunner({ index, selectBackend: () => undefined });
    expect((await rejection(runner.run('demo:echo'))).code).toBe('no_backends');
  });

  it('prefers local over provider over mcp by default', async () => {
    const index = createIndex();
    index.registerTool(echo, { kind: 'mcp', mcp: { serverName: 's' } });
    index.registerTool(echo, { kind: 'provider', provider: { providerId: 'p', toolId: 'echo' } });
    index.registerTool(echo, localBackend('echo'));
    const runner = createRunner({
      index,
      local: createLocalRegistry().register('echo', () => 'local'),
    });
    expect((await runner.run('demo:echo')).backend.kind).toBe('local');
  });

  it('uses a custom selector when given one', async () => {
    const index = createIndex();
    index.registerTool(echo, localBackend('echo'));
    index.registerTool(echo, { kind: 'provider', provider: { providerId: 'p', toolId: 'echo' } });
    const provider: ProviderExecutor = {
      callTool: (providerId, toolId, args) => Promise.resolve({ providerId, toolId, args }),
    };
    const runner = createRunner({
      index,
      provider,
      selectBackend: (backends) => backends.find((b) => b.kind === 'provider'),
    });
    const result = await runner.run('demo:echo', { q: 1 });
    expect(result.structured).toEqual({ providerId: 'p', toolId: 'echo', args: { q: 1 } });
  });

  it('wraps an index error other than not-found with the resolve op', async () => {
    const runner = createRunner({
      index: {
        getTool: () => {
          throw new ToolError('invalid_tool_id', 'bad');
        },
      },
    });
    const error = await rejection(runner.run('demo:x'));
    expect(error.code).toBe('invalid_tool_id');
    expect(error.op).toBe('resolve');
  });
});

describe('createRunner().run with provider tools', () => {
  const search = demoTool('search');
  const backend: ToolBackend = {
    kind: 'provider',
    provider: { providerId: 'acme', toolId: 'web' },
  };

  it('passes the provider and tool IDs, args and signal to the executor', async () => {
    const index = createIndex();
    index.registerTool(search, backend);
    let seenSignal: AbortSignal | undefined;
    const runner = createRunner({
      index,
      provider: {
        callTool: (providerId, toolId, args, { signal }) => {
          seenSignal = signal;
          return Promise.resolve({ providerId, toolId, args });
        },
      },
    });
    const controller = new AbortController();
    const result = await runner.run('demo:search', { q: 'x' }, { signal: controller.signal });
    expect(result.structured).toEqual({ providerId: 'acme', toolId: 'web', args: { q: 'x' } });
    expect(seenSignal).toBe(controller.signal);
  });

  it('rejects with execution when there is no provider executor', async () => {
    const index = createIndex();
    index.registerTool(search, backend);
    expect((await rejection(createRunner({ index }).run('demo:search'))).code).toBe('execution');
  });
});
