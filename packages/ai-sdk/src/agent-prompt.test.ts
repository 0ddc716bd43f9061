import { parsePrompt } from '@toolplane/toolkit';
import { ToolError } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { MAX_AGENT_STEPS, parseAgentPrompt } from './agent-prompt.js';

const file = (frontMatter: string, body = 'Do {{ what }}.') => `---\n${frontMatter}\n---\n${body}`;

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return ToolError.isInstance(error) ? error.code : 'not a ToolError';
  }
  return undefined;
}

describe('parseAgentPrompt', () => {
  it('reads the agent keys and leaves the rest to the toolkit', () => {
    const text = file(
      [
        'name: researcher',
        'model: gpt-5-mini',
        'max_steps: 3',
        'tools: [fx:add]',
        'tool_namespaces: [fx, everything]',
        'tool_tags:',
        '  - safe',
      ].join('\n'),
    );
    const { prompt, settings } = parseAgentPrompt(text, { filename: 'researcher.md' });
    expect(settings).toEqual({
      maxSteps: 3,
      toolNamespaces: ['fx', 'everything'],
      toolTags: ['safe'],
    });
    expect(prompt).toEqual({
      name: 'researcher',
      model: 'gpt-5-mini',
      tools: ['fx:add'],
      template: 'Do {{ what }}.',
    });
  });

  it('gives the same prompt as parsePrompt for a file without agent keys', () => {
    const plain = file('name: plain\ntitle: A plain prompt here\nmodel: m');
    expect(parseAgentPrompt(plain)).toEqual({ prompt: parsePrompt(plain), settings: {} });
    const bare = '# Heading of a prompt\nHello';
    expect(parseAgentPrompt(bare, { filename: 'bare.md' })).toEqual({
      prompt: parsePrompt(bare, { filename: 'bare.md' }),
      settings: {},
    });
  });

  it('keeps a front matter of agent keys only valid', () => {
    const { prompt, settings } = parseAgentPrompt(file('max_steps: 1'), { filename: 'one.md' });
    expect(settings).toEqual({ maxSteps: 1 });
    expect(prompt.name).toBe('one');
  });

  it('refuses bad agent values with invalid_prompt naming the file', () => {
    for (const bad of [
      'max_steps: 0',
      `max_steps: ${MAX_AGENT_STEPS + 1}`,
      'max_steps: 2.5',
      'max_steps: "3"',
      'tool_namespaces: fx',
      'tool_namespaces: []',
      'tool_tags: [1]',
      'tool_tags: [""]',
    ]) {
      const text = file(`name: bad\n${bad}`);
      expect(codeOf(() => parseAgentPrompt(text, { filename: 'bad.md' }))).toBe('invalid_prompt');
      expect(() => parseAgentPrompt(text, { filename: 'bad.md' })).toThrow(/bad\.md/);
    }
  });

  it('leaves the toolkit’s own errors to the toolkit', () => {
    expect(codeOf(() => parseAgentPrompt(file('name: x\nmax_step: 3')))).toBe('invalid_prompt');
    expect(codeOf(() => parseAgentPrompt(file('name: x\nmax_steps: 3\nnope: 1')))).toBe(
      'invalid_prompt',
    );
    expect(codeOf(() => parseAgentPrompt(file('name: [unclosed')))).toBe('invalid_prompt');
    expect(codeOf(() => parseAgentPrompt(file('- a list')))).toBe('invalid_prompt');
    expect(codeOf(() => parseAgentPrompt(file('name: x\nmax_steps: 2\nmax_steps: 3')))).toBe(
      'invalid_prompt',
    );
    expect(
      codeOf(() => parseAgentPrompt(file('name: x\n__proto__: { max_steps: 3 }\nmax_steps: 3'))),
    ).toBe('invalid_prompt');
  });

  it('reads CRLF files and a byte-order mark', () => {
    const text = '\uFEFF---\r\nname: win\r\nmax_steps: 2\r\n---\r\nHi';
    expect(parseAgentPrompt(text)).toMatchObject({
      prompt: { name: 'win', template: 'Hi' },
      settings: { maxSteps: 2 },
    });
  });
});
