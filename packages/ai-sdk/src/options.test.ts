import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { createAiSdkDelegate } from './delegate.js';
import { createAiSdkSamplingHandler } from './sampling.js';
import { MockLanguageModelV3 } from './testing/model-steps.js';
import { toModelOutput, type ResultOutput } from './results.js';
import { toAiSdkTools } from './tools.js';

// The fixture server over stdio as `fx`: the options are checked against a real catalogue.
const toolkit = useFixtureToolkit();

const refused = (message: string): unknown =>
  expect.objectContaining({ code: 'invalid_argument', message });

describe('the AI SDK adapter options', () => {
  it('refuses a misspelled option of toAiSdkTools, naming the one it meant', async () => {
    // `needsAproval: true` was ignored: every tool ran without asking.
    await expect(toAiSdkTools(toolkit, { needsAproval: true } as never)).rejects.toEqual(
      refused('toAiSdkTools: unknown option "needsAproval"; did you mean "needsApproval"?'),
    );
    await expect(
      toAiSdkTools(toolkit, { include: { namespace: ['fx'] } } as never),
    ).rejects.toEqual(
      refused('toAiSdkTools: include: unknown option "namespace"; did you mean "namespaces"?'),
    );
    await expect(toAiSdkTools(toolkit, { mode: 'serach' } as never)).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });

  it('takes every option of its own', async () => {
    const tools = await toAiSdkTools(toolkit, {
      include: { namespaces: ['fx'] },
      exclude: { tags: ['none'] },
      naming: { separator: '__' },
      maxOutputChars: 1_000,
      progress: false,
      needsApproval: false,
      meta: {},
      mode: 'tools',
    });
    expect(Object.keys(tools)).toContain('fx__add');
  });

  it('refuses a misspelled option of createAiSdkDelegate and of its tools, when it is made', () => {
    const chooseModel = () => new MockLanguageModelV3();
    expect(() =>
      createAiSdkDelegate({ source: toolkit, chooseModel, maxStep: 3 } as never),
    ).toThrow(refused('createAiSdkDelegate: unknown option "maxStep"; did you mean "maxSteps"?'));
    expect(() =>
      createAiSdkDelegate({ source: toolkit, chooseModel, tools: { exlude: {} } } as never),
    ).toThrow(
      refused('createAiSdkDelegate: tools: unknown option "exlude"; did you mean "exclude"?'),
    );
  });

  it('refuses a maxRetries that is not a whole number of 0 or more, when it is made', () => {
    const chooseModel = () => new MockLanguageModelV3();
    // It went to generateText as it was, which refused it on every prompt call.
    for (const maxRetries of [-1, 1.5, Number.NaN]) {
      expect(() => createAiSdkDelegate({ source: toolkit, chooseModel, maxRetries })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
    expect(() =>
      createAiSdkDelegate({ source: toolkit, chooseModel, maxRetries: 0 }),
    ).not.toThrow();
  });

  it('refuses a misspelled option of createAiSdkSamplingHandler, and a cap below 1', () => {
    const model = new MockLanguageModelV3();
    expect(() => createAiSdkSamplingHandler(model, { maxTokens: 100 } as never)).toThrow(
      refused(
        'createAiSdkSamplingHandler: unknown option "maxTokens"; did you mean "maxTokensCap"?',
      ),
    );
    expect(() => createAiSdkSamplingHandler(model, { maxTokensCap: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('refuses a misspelled option of toModelOutput, and a maxOutputChars below 1', () => {
    const output: ResultOutput = {
      type: 'result',
      content: [{ type: 'text', text: 'x'.repeat(50) }],
    };
    // `maxOutputChar: 10` was ignored: the whole result went to the model, up to the default.
    expect(() => toModelOutput(output, { maxOutputChar: 10 } as never)).toThrow(
      refused('toModelOutput: unknown option "maxOutputChar"; did you mean "maxOutputChars"?'),
    );
    // 0 left every result out of what the model reads.
    expect(() => toModelOutput(output, { maxOutputChars: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(toModelOutput(output, { maxOutputChars: 10 })).toMatchObject({ type: 'text' });
  });
});
