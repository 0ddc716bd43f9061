import { errorCodeOf, errorMessageOf } from '@toolplane/toolmodel/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createMemoryStore,
  createToolkit,
  defineTool,
  type CallOptions,
  type Prompt,
  type ToolkitOptions,
  type ToolkitSearchOptions,
} from '../index.js';
import { textResource } from '../resources/resources.js';

/** What plain JavaScript can hand `createToolkit`, past the type. */
function untyped(options: unknown): ToolkitOptions {
  return options as ToolkitOptions;
}

describe('createToolkit options', () => {
  it('refuses a key it does not know, as a misspelling or by analogy', () => {
    expect(errorCodeOf(() => createToolkit(untyped({ tols: [] })))).toBe('invalid_argument');
    expect(
      errorCodeOf(() =>
        createToolkit(untyped({ connectors: [{ command: 'node', args: ['server.js'] }] })),
      ),
    ).toBe('invalid_argument');
    expect(errorCodeOf(() => createToolkit(untyped({ zzz: 1 })))).toBe('invalid_argument');
  });

  it('names the key, and the known one it is close to', () => {
    let message = '';
    try {
      createToolkit(untyped({ middlewares: [] }));
    } catch (error) {
      message = (error as Error).message;
    }
    // The message's promise (the one this file reads text for): both keys are named.
    expect(message).toContain('"middlewares"');
    expect(message).toContain('"middleware"');
  });

  it('refuses a maxCallDepth that is not a whole number, 1 or more', () => {
    // NaN (`Number(process.env.X)` of a variable not set) ended no recursion: a prompt that
    // calls itself ran until the process ran out of memory. 0 refused every call.
    for (const maxCallDepth of [Number.NaN, 0, -1, 2.5, Number.POSITIVE_INFINITY]) {
      expect(
        errorMessageOf(() => createToolkit({ maxCallDepth }), 'invalid_config'),
        String(maxCallDepth),
      ).toMatch(/^createToolkit: maxCallDepth must be a whole number, 1 or more, got /);
    }
  });

  it('accepts every key it knows, and no options at all', async () => {
    const toolkit = createToolkit({
      tools: [],
      prompts: [],
      resources: [],
      resourceTemplates: [],
      store: createMemoryStore(),
      maxCallDepth: 4,
      middleware: [],
      secrets: [],
      connectorDefaults: {},
      sessionConnections: {},
    });
    await toolkit.close();
    await createToolkit().close();
  });
});

describe('the options of a toolkit method', () => {
  const runs: unknown[] = [];
  const add = defineTool({
    name: 'add',
    description: 'Add two numbers.',
    input: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => {
      runs.push([a, b]);
      return { sum: a + b };
    },
  });
  const greet: Prompt = { name: 'greet', template: 'Hello {{name}}' };
  const toolkit = createToolkit({ tools: [add], prompts: [greet] });
  toolkit.addResource(textResource('notes', 'v1', { uri: 'memo://notes' }));
  afterAll(() => toolkit.close());

  /** The message of the error `promise` rejects with (it must reject, never throw). */
  async function refusal(promise: () => Promise<unknown>): Promise<string> {
    const pending = promise();
    const error = await pending.then(
      () => undefined,
      (caught: unknown) => caught as { code?: string; message?: string },
    );
    expect(error?.code).toBe('invalid_argument');
    return error?.message ?? '';
  }

  it('refuses a misspelled key, naming the one meant, and runs nothing', async () => {
    const wrong = (options: object) => options as never;
    expect(await refusal(() => toolkit.call(add, { a: 1, b: 2 }, wrong({ kep: true })))).toBe(
      'call: unknown option "kep"; did you mean "keep"?',
    );
    expect(
      await refusal(() => toolkit.callTool('builtin:add', { a: 1, b: 2 }, wrong({ sigal: 1 }))),
    ).toBe('callTool: unknown option "sigal"; did you mean "signal"?');
    expect(await refusal(() => toolkit.search('add', wrong({ limt: 5 })))).toBe(
      'search: unknown option "limt"; did you mean "limit"?',
    );
    expect(await refusal(() => toolkit.list(wrong({ typ: 'tool' })))).toBe(
      'list: unknown option "typ"; did you mean "type"?',
    );
    expect(await refusal(() => toolkit.readResource('memo://notes', wrong({ session: 's' })))).toBe(
      'readResource: unknown option "session"; did you mean "sessionKey"?',
    );
    expect(await refusal(() => toolkit.getPrompt('greet', {}, wrong({ args: {} })))).toContain(
      'getPrompt: unknown option "args"',
    );
    expect(await refusal(() => toolkit.lookup('add', wrong({ timeout: 5 })))).toBe(
      'lookup: unknown option "timeout"; known options: signal',
    );
    expect(
      await refusal(() =>
        toolkit.complete(
          { type: 'prompt', namespace: 'builtin', name: 'greet' },
          { name: 'name', value: 'A' },
          wrong({ argument: {} }),
        ),
      ),
    ).toBe('complete: unknown option "argument"; did you mean "arguments"?');
    expect(await refusal(() => toolkit.ready(wrong({ timeoutMs: 5 })))).toContain('ready:');
    expect(runs).toEqual([]);
  });

  it('takes every key of each method, and reads no inherited one', async () => {
    const signal = new AbortController().signal;
    const every: Required<CallOptions> = {
      signal,
      resources: [],
      keep: true,
      onProgress: () => undefined,
      meta: {},
      session: {},
      onUpstreamRequest: () => Promise.reject(new Error('not asked')),
      sessionKey: 's',
      learningKey: 'l',
    };
    expect((await toolkit.call(add, { a: 1, b: 2 }, every))?.structured).toEqual({ sum: 3 });
    const inherited = Object.create({ kep: true }) as CallOptions;
    expect((await toolkit.callTool('builtin:add', { a: 2, b: 2 }, inherited)).structured).toEqual({
      sum: 4,
    });
    const search: ToolkitSearchOptions = {
      limit: 5,
      namespace: 'builtin',
      tags: [],
      signal,
      sessionKey: 's',
    };
    expect((await toolkit.search('add', search)).results[0]?.id).toBe('builtin:add');
    const listed = await toolkit.list({ type: 'tool', namespace: 'builtin', limit: 5, signal });
    expect(listed.tools.map((t) => t.name)).toEqual(['add']);
    expect((await toolkit.readResource('memo://notes', { signal, sessionKey: 's' })).text).toBe(
      'v1',
    );
  });
});

describe('defineTool', () => {
  const input = z.object({ path: z.string() });

  it('refuses a key it does not take: a misspelt annotations would drop destructiveHint', () => {
    const definition = {
      name: 'delete_file',
      description: 'Deletes a file.',
      input,
      annotation: { destructiveHint: true },
      run: () => 'deleted',
    };
    expect(errorMessageOf(() => defineTool(definition as never), 'invalid_tool')).toBe(
      'defineTool: unknown option "annotation"; did you mean "annotations"?',
    );
  });

  it('takes every key of a definition', () => {
    const defined = defineTool({
      name: 'delete_file',
      title: 'Delete a file',
      description: 'Deletes a file.',
      input,
      output: z.object({ deleted: z.boolean() }),
      annotations: { destructiveHint: true },
      tags: ['files'],
      run: () => ({ deleted: true }),
    });
    expect(defined.tool.annotations).toEqual({ destructiveHint: true });
  });
});
