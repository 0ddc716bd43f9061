import type { SourceCallOptions, ToolSource } from '@toolplane/adapter-kit';
import { everythingCommand, fixtureCommand } from '@toolplane/fixtures';
import {
  createToolkit,
  defineTool,
  textResource,
  type Prompt,
  type Toolkit,
} from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAiSdkDelegate,
  type AgentModelRequest,
  type AiSdkDelegateOptions,
} from './delegate.js';
import { MockLanguageModelV3, textStep, toolCallStep } from './testing/model-steps.js';

const prompts: Prompt[] = [
  {
    name: 'adder',
    title: 'Adds two numbers',
    model: 'scripted-model',
    provider: 'test',
    systemPrompt: 'You add numbers for {{ who }}.',
    input: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
    tools: ['fx:add'],
    maxTokens: 300,
    template: 'Add 2 and 3 for {{ who }}.',
  },
  { name: 'open', template: 'Use any tool.' },
  { name: 'open-everything', toolNamespaces: ['everything'], template: 'Use any tool.' },
  {
    name: 'open-none',
    toolNamespaces: ['fx'],
    toolTags: ['no-such-tag'],
    template: 'Use any tool.',
  },
  { name: 'adder-short', tools: ['fx:add'], maxSteps: 2, template: 'Add 2 and 3.' },
  { name: 'slowpoke', tools: ['fx:slow'], template: 'Wait.' },
  // The seed writes tool names bare.
  { name: 'bare-adder', tools: ['add'], template: 'Add 2 and 3.' },
  { name: 'typo-adder', tools: ['ad'], template: 'Add 2 and 3.' },
  { name: 'bare-echo', tools: ['echo'], template: 'Echo.' },
  { name: 'missing-id', tools: ['fx:no-such-tool'], template: 'Nothing.' },
  {
    name: 'verdict',
    output: {
      type: 'object',
      properties: { verdict: { enum: ['yes', 'no'] } },
      required: ['verdict'],
    },
    template: 'Is 5 odd?',
  },
];

/** The model the current test scripts, and what the chooser was asked. */
const state: { model?: MockLanguageModelV3; asked: AgentModelRequest[] } = { asked: [] };
const delegateOptions: AiSdkDelegateOptions = {
  source: () => toolkit,
  chooseModel: (request) => {
    state.asked.push(request);
    return state.model;
  },
  maxSteps: 4,
  maxRetries: 0,
};

let toolkit: Toolkit;
let running: RunningToolkit;
beforeAll(async () => {
  toolkit = createToolkit({ prompts, delegate: createAiSdkDelegate(delegateOptions) });
  toolkit.addConnector(everythingCommand(), { namespace: 'everything' });
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  running = await runToolkit(toolkit);
});
afterAll(async () => {
  await running.stop();
});

function script(...steps: ConstructorParameters<typeof MockLanguageModelV3>[0][]) {
  const model = new MockLanguageModelV3(steps[0]);
  state.model = model;
  state.asked = [];
  return model;
}

function offered(model: MockLanguageModelV3, call = 0): string[] {
  return (model.doGenerateCalls[call]?.tools ?? []).map((tool) => tool.name).sort();
}

describe('createAiSdkDelegate', () => {
  it('runs a prompt with the chosen model and its tools over real stdio, and answers its text', async () => {
    const model = script({
      doGenerate: [
        toolCallStep([{ toolCallId: 'a', toolName: 'fx__add', input: { a: 2, b: 3 } }]),
        textStep('2 + 3 = 5, Ada.'),
      ],
    });
    const answer = await toolkit.call('adder', { who: 'Ada' });
    expect(answer?.text).toBe('2 + 3 = 5, Ada.');
    expect(answer?.structured).toBe('2 + 3 = 5, Ada.');

    // The chooser was asked with the prompt's front matter.
    expect(state.asked).toHaveLength(1);
    expect(state.asked[0]).toMatchObject({ model: 'scripted-model', provider: 'test' });
    expect(state.asked[0]?.prompt.name).toBe('adder');

    // Only the prompt's own tools, the rendered system prompt and body, and its token budget.
    expect(offered(model)).toEqual(['fx__add']);
    const first = model.doGenerateCalls[0];
    expect(first?.maxOutputTokens).toBe(300);
    expect(first?.prompt[0]).toEqual({ role: 'system', content: 'You add numbers for Ada.' });
    expect(JSON.stringify(first?.prompt[1])).toContain('Add 2 and 3 for Ada.');

    // The real server's answer reached the model in the second step.
    const toolParts = (model.doGenerateCalls[1]?.prompt ?? [])
      .filter((message) => message.role === 'tool')
      .flatMap((message) => message.content);
    expect(toolParts).toContainEqual(
      expect.objectContaining({ toolCallId: 'a', output: { type: 'json', value: { sum: 5 } } }),
    );
  });

  it('runs a remote prompt, rendered by its server, with no front matter to choose by', async () => {
    const model = script({ doGenerate: [textStep('Sunny.')] });
    const answer = await toolkit.call('everything:args-prompt', { city: 'Lisbon' });
    expect(answer?.text).toBe('Sunny.');
    expect(state.asked[0]).toMatchObject({ model: undefined, provider: undefined });
    expect(state.asked[0]?.prompt.prompt).toBeUndefined();
    expect(JSON.stringify(model.doGenerateCalls[0]?.prompt)).toContain("What's weather in Lisbon?");
  });

  it('narrows the tools to the namespaces and tags the prompt names', async () => {
    const model = script({ doGenerate: [textStep('nothing to do')] });
    await toolkit.call('open-everything');
    const names = offered(model);
    expect(names).toContain('everything__get-sum');
    expect(names.every((name) => name.startsWith('everything__'))).toBe(true);

    const all = script({ doGenerate: [textStep('nothing to do')] });
    await toolkit.call('open');
    const every = offered(all);
    expect(every).toContain('fx__add');
    expect(every).toContain('everything__get-sum');

    const none = script({ doGenerate: [textStep('nothing to do')] });
    await toolkit.call('open-none');
    expect(offered(none)).toEqual([]);
  });

  it('tells the model a call to a tool outside the prompt’s list as an error, and goes on', async () => {
    const model = script({
      doGenerate: [
        toolCallStep([{ toolCallId: 'x', toolName: 'everything__get-sum', input: { a: 1, b: 1 } }]),
        textStep('I may not use that tool.'),
      ],
    });
    const answer = await toolkit.call('adder', { who: 'Bo' });
    expect(answer?.text).toBe('I may not use that tool.');
    const toolParts = (model.doGenerateCalls[1]?.prompt ?? [])
      .filter((message) => message.role === 'tool')
      .flatMap((message) => message.content);
    expect(toolParts).toContainEqual(
      expect.objectContaining({
        toolCallId: 'x',
        output: expect.objectContaining({ type: 'error-text' }),
      }),
    );
  });

  it('fails with not_found when the chooser has no model for the prompt', async () => {
    script({ doGenerate: [textStep('unused')] });
    state.model = undefined;
    const error = await toolkit.call('adder', { who: 'Ada' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'not_found' });
    expect((error as Error).message).toContain('scripted-model');
  });

  it('offers the tool a bare name in tools: means, in the toolkit lookup order', async () => {
    const model = script({ doGenerate: [textStep('done')] });
    await toolkit.call('bare-adder');
    expect(offered(model)).toEqual(['fx__add']);
  });

  it('refuses a bare name that matches nothing or two tools, before the model runs', async () => {
    const model = script({ doGenerate: [textStep('unused')] });
    const unknown = await toolkit.call('typo-adder').catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 'invalid_prompt' });
    expect((unknown as Error).message).toContain('fx:add');
    const twice = await toolkit.call('bare-echo').catch((e: unknown) => e);
    expect(twice).toMatchObject({ code: 'invalid_prompt' });
    expect((twice as Error).message).toContain('everything:echo');
    expect(await rejectionCodeOf(toolkit.call('missing-id'))).toBe('invalid_prompt');
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('prefers a builtin tool to a connector tool of the same bare name', async () => {
    const withBuiltin = createToolkit({
      prompts: [{ name: 'echoer', tools: ['echo'], template: 'Echo.' }],
      tools: [
        defineTool({
          name: 'echo',
          description: 'Echoes its text.',
          input: { type: 'object', properties: { text: { type: 'string' } } },
          run: ({ text }) => String(text),
        }),
      ],
      delegate: createAiSdkDelegate({ ...delegateOptions, source: () => withBuiltin }),
    });
    withBuiltin.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    const started = await runToolkit(withBuiltin);
    try {
      const model = script({ doGenerate: [textStep('done')] });
      await withBuiltin.call('echoer');
      expect(offered(model)).toEqual(['builtin__echo']);
    } finally {
      await started.stop();
    }
  });

  it.each([
    ['anthropic', { anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 } } }],
    ['openai', { openai: { reasoningEffort: 'medium' } }],
    ['google', { google: { thinkingConfig: { includeThoughts: false, thinkingBudget: 4000 } } }],
  ])(
    'hands thinking and thinking_budget to %s as its provider options',
    async (provider, options) => {
      const thinker = createToolkit({
        prompts: [
          { name: 'thinker', provider, thinking: true, thinkingBudget: 4000, template: 'Think.' },
        ],
        delegate: createAiSdkDelegate({ ...delegateOptions, source: () => thinker }),
      });
      const model = script({ doGenerate: [textStep('thought')] });
      await thinker.call('thinker');
      expect(model.doGenerateCalls[0]?.providerOptions).toEqual(options);
      await thinker.close();
    },
  );

  it('wraps a chooser that throws as execution, and refuses a bad step limit', async () => {
    const throwing = createToolkit({
      prompts,
      delegate: createAiSdkDelegate({
        ...delegateOptions,
        chooseModel: () => {
          throw new Error('no such provider');
        },
      }),
    });
    const error = await throwing.call('open').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'execution' });
    expect((error as Error).cause).toBeInstanceOf(Error);
    await throwing.close();

    for (const maxSteps of [0, 1.5, Number.NaN]) {
      expect(() => createAiSdkDelegate({ ...delegateOptions, maxSteps })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });

  it('fails with step_limit_exceeded when the model still calls tools at the last step', async () => {
    const again = toolCallStep([{ toolCallId: 'n', toolName: 'fx__add', input: { a: 1, b: 1 } }]);
    const model = script({ doGenerate: () => Promise.resolve(again) });
    expect(await rejectionCodeOf(toolkit.call('adder', { who: 'Ada' }))).toBe(
      'step_limit_exceeded',
    );
    // The option's limit, 4 steps.
    expect(model.doGenerateCalls).toHaveLength(4);

    // The prompt's own max_steps wins over the option.
    const short = script({ doGenerate: () => Promise.resolve(again) });
    expect(await rejectionCodeOf(toolkit.call('adder-short'))).toBe('step_limit_exceeded');
    expect(short.doGenerateCalls).toHaveLength(2);
  });

  it('answers a prompt with an output schema with the checked JSON value', async () => {
    script({ doGenerate: [textStep('{"verdict":"yes"}')] });
    const answer = await toolkit.call('verdict');
    expect(answer?.structured).toEqual({ verdict: 'yes' });
    expect(JSON.parse(answer?.text ?? '')).toEqual({ verdict: 'yes' });

    script({ doGenerate: [textStep('{"verdict":"maybe"}')] });
    expect(await rejectionCodeOf(toolkit.call('verdict'))).toBe('output_validation');

    script({ doGenerate: [textStep('Yes, it is odd.')] });
    expect(await rejectionCodeOf(toolkit.call('verdict'))).toBe('output_validation');

    // Cut off by the token limit: no answer at all.
    const cut = {
      ...textStep('{"verd'),
      finishReason: { unified: 'length' as const, raw: undefined },
    };
    script({ doGenerate: [cut] });
    expect(await rejectionCodeOf(toolkit.call('verdict'))).toBe('output_validation');
  });

  it('hands the call’s resources to the model', async () => {
    const model = script({ doGenerate: [textStep('read it')] });
    await toolkit.call('open', {}, { resources: [textResource('notes', 'the sky is green')] });
    expect(JSON.stringify(model.doGenerateCalls[0]?.prompt)).toContain('the sky is green');
  });

  it('wraps a model failure as execution, with the cause', async () => {
    script({
      doGenerate: () => Promise.reject(new Error('model overloaded')),
    });
    const error = await toolkit.call('open').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'execution' });
    expect((error as Error).message).toContain('model overloaded');
  });

  it('fails with the toolkit’s codes for bad input, before the model runs', async () => {
    const model = script({ doGenerate: [textStep('unused')] });
    expect(await rejectionCodeOf(toolkit.call('adder', { who: 42 }))).toBe('validation');
    expect(
      await rejectionCodeOf(
        toolkit.call('adder', JSON.parse('{"__proto__":{"who":"x"}}') as Record<string, unknown>),
      ),
    ).toBe('invalid_argument');
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('cancels the tool call in flight when the call’s signal aborts; the server sees it', async () => {
    const label = 'agent-abort';
    script({
      doGenerate: [
        toolCallStep([{ toolCallId: 's', toolName: 'fx__slow', input: { ms: 60_000, label } }]),
        textStep('unreachable'),
      ],
    });
    let started: () => void = () => undefined;
    const upstreamStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    // The real toolkit, telling the test when the server reports the slow call's first progress.
    const watched: ToolSource = {
      index: toolkit.index,
      runner: toolkit.runner,
      callTool: (id, input, options: SourceCallOptions = {}) =>
        toolkit.callTool(id, input, {
          ...options,
          onProgress: (event) => {
            options.onProgress?.(event);
            started();
          },
        }),
    };
    const local = createToolkit({
      prompts,
      delegate: createAiSdkDelegate({ ...delegateOptions, source: watched }),
    });
    const controller = new AbortController();
    const call = local.call('slowpoke', {}, { signal: controller.signal });
    await upstreamStarted;
    controller.abort();
    expect(await rejectionCodeOf(call)).toBe('cancelled');
    const seen = await toolkit.callTool('fx:wait-cancelled', { label, timeoutMs: 15_000 });
    expect(seen.structured).toEqual({ cancelled: true });
    await local.close();
  });

  it('ends a prompt → tool → prompt loop with call_depth_exceeded for the caller', async () => {
    const loop = toolCallStep([{ toolCallId: 'r', toolName: 'builtin__recurse', input: {} }]);
    const model = script({ doGenerate: () => Promise.resolve(loop) });
    const self: { toolkit?: Toolkit } = {};
    const looping = createToolkit({
      maxCallDepth: 4,
      tools: [
        defineTool({
          name: 'recurse',
          description: 'Runs the prompt that calls it.',
          input: { type: 'object' },
          run: () => self.toolkit?.call('loop'),
        }),
      ],
      prompts: [{ name: 'loop', tools: ['builtin:recurse'], template: 'again' }],
      delegate: createAiSdkDelegate({ ...delegateOptions, source: () => looping }),
    });
    self.toolkit = looping;
    const error = await looping.call('loop').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'call_depth_exceeded' });
    // Each level asked the model once before the limit cut the chain; no level went on.
    expect(model.doGenerateCalls).toHaveLength(2);
    await looping.close();
  });

  it('keeps the prompt’s tool list in search mode: call_tool and describe_tool refuse the rest', async () => {
    const model = script({
      doGenerate: [
        toolCallStep([
          { toolCallId: 'd', toolName: 'describe_tool', input: { id: 'everything:get-sum' } },
          {
            toolCallId: 'c',
            toolName: 'call_tool',
            input: { id: 'everything:get-sum', arguments: { a: 1, b: 2 } },
          },
          {
            toolCallId: 'ok',
            toolName: 'call_tool',
            input: { id: 'fx:add', arguments: { a: 1, b: 2 } },
          },
        ]),
        textStep('done'),
      ],
    });
    const searching = createToolkit({
      prompts,
      delegate: createAiSdkDelegate({ ...delegateOptions, tools: { mode: 'search' } }),
    });
    expect((await searching.call('adder', { who: 'Cy' }))?.text).toBe('done');
    expect(offered(model)).toEqual(['call_tool', 'describe_tool', 'search_tools']);
    const parts = (model.doGenerateCalls[1]?.prompt ?? [])
      .filter((message) => message.role === 'tool')
      .flatMap((message) => message.content);
    const byId = (id: string) =>
      JSON.stringify(parts.find((p) => 'toolCallId' in p && p.toolCallId === id));
    expect(byId('d')).toContain('not_found');
    expect(byId('c')).toContain('not_found');
    expect(byId('ok')).toContain('"sum":3');
    await searching.close();
  });

  it('goes on when the tool’s server dies mid-call: the model reads the failure', async () => {
    const dying = createToolkit();
    dying.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    const run = await runToolkit(dying);
    const pid = dying.connectors()[0]?.pid;
    expect(pid).toBeTypeOf('number');
    const model = script({
      doGenerate: [
        toolCallStep([{ toolCallId: 's', toolName: 'fx__slow', input: { ms: 60_000 } }]),
        textStep('The server went away.'),
      ],
    });
    // Kills the server once it reports the slow call's first progress.
    let killed = false;
    const source: ToolSource = {
      index: dying.index,
      runner: dying.runner,
      callTool: (id, input, options: SourceCallOptions = {}) =>
        dying.callTool(id, input, {
          ...options,
          onProgress: (event) => {
            options.onProgress?.(event);
            if (!killed && pid !== undefined) process.kill(pid, 'SIGKILL');
            killed = true;
          },
        }),
    };
    const local = createToolkit({
      prompts,
      delegate: createAiSdkDelegate({ ...delegateOptions, source }),
    });
    const answer = await local.call('slowpoke');
    expect(answer?.text).toBe('The server went away.');
    const parts = (model.doGenerateCalls[1]?.prompt ?? [])
      .filter((message) => message.role === 'tool')
      .flatMap((message) => message.content);
    expect(parts).toContainEqual(
      expect.objectContaining({
        toolCallId: 's',
        output: expect.objectContaining({ type: 'error-text' }),
      }),
    );
    await local.close();
    await run.stop();
  });

  it('refuses a step limit that is not a positive integer', () => {
    for (const maxSteps of [0, -1, 1.5, Number.NaN]) {
      expect(() => createAiSdkDelegate({ ...delegateOptions, maxSteps })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });
});
