import { createValidator, ToolError, TOOL_NAME_PATTERN } from '@toolplane/toolmodel';
import { errorCodeOf, rejectionCodeOf } from '@toolplane/toolmodel/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePrompt, validatePrompt, type Prompt } from './prompts.js';
import { completePromptArgument, renderPrompt, toMcpPrompt } from './render.js';

const REVIEWER = `---
description: Reviews a pull request
model: claude-sonnet-4-5
provider: anthropic
system_prompt: You review {{ language }} code.
input:
  type: object
  properties:
    language: { type: string, description: Programming language }
    diff: { type: string, title: The diff }
    strict: { type: boolean }
  required: [diff]
output: { type: object }
tools: [github:get_pr, "builtin:search"]
thinking: true
thinking_budget: 2048
max_tokens: 4096
max_steps: 5
tool_namespaces: [github]
tool_tags: [read-only]
---
# Code reviewer

Review this diff:
{{ diff }}
`;

describe('parsePrompt', () => {
  it('reads every front-matter field and defaults name and title from file and heading', () => {
    const prompt = parsePrompt(REVIEWER, { filename: 'prompts/code-review.md' });
    expect(prompt).toEqual({
      name: 'code-review',
      title: 'Code reviewer',
      description: 'Reviews a pull request',
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
      systemPrompt: 'You review {{ language }} code.',
      input: {
        type: 'object',
        properties: {
          language: { type: 'string', description: 'Programming language' },
          diff: { type: 'string', title: 'The diff' },
          strict: { type: 'boolean' },
        },
        required: ['diff'],
      },
      output: { type: 'object' },
      tools: ['github:get_pr', 'builtin:search'],
      thinking: true,
      thinkingBudget: 2048,
      maxTokens: 4096,
      maxSteps: 5,
      toolNamespaces: ['github'],
      toolTags: ['read-only'],
      template: '# Code reviewer\n\nReview this diff:\n{{ diff }}\n',
    });
  });

  it('prefers an explicit name and title over the defaults', () => {
    const prompt = parsePrompt('---\nname: x1\ntitle: Explicit title\n---\n# Heading\n', {
      filename: 'other.md',
    });
    expect(prompt.name).toBe('x1');
    expect(prompt.title).toBe('Explicit title');
  });

  it('keeps the seed’s rule for a title written in the file: ten characters or more', () => {
    expect(() => parsePrompt('---\nname: x1\ntitle: Short\n---\nbody\n')).toThrow(
      /title must be at least 10 characters long, got "Short"/,
    );
  });

  it('takes the seed’s format: as the output schema, and refuses it beside output:', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const prompt = parsePrompt(
      '---\nname: f\nformat:\n  type: object\n  properties:\n    a: { type: string }\n---\nbody',
    );
    expect(prompt.output).toEqual(schema);
    expect(() =>
      parsePrompt('---\nname: f\nformat: { type: object }\noutput: { type: object }\n---\nbody'),
    ).toThrow(expect.objectContaining({ code: 'invalid_prompt' }));
  });

  it('keeps the title rule for a title from the first heading and for a prompt made in code', () => {
    expect(() => parsePrompt('# Hi\nbody\n', { filename: 'hi.md' })).toThrow(
      /hi\.md: title \(the first # heading\) must be at least 10 characters long, got "Hi"/,
    );
    expect(() => validatePrompt({ name: 'x', title: 'Short', template: 'body' })).toThrow(
      expect.objectContaining({ code: 'invalid_prompt' }),
    );
  });

  it('treats a file without front matter as all body, and CRLF and a BOM as plain text', () => {
    const prompt = parsePrompt('\uFEFF# Hi there, reader #\r\nbody\r\n', { filename: 'hi.md' });
    expect(prompt).toEqual({
      name: 'hi',
      title: 'Hi there, reader',
      template: '# Hi there, reader #\nbody\n',
    });
  });

  it('ignores headings inside fenced code when finding the title', () => {
    const prompt = parsePrompt('```md\n# not this\n```\n\n# This one here\n', { filename: 't.md' });
    expect(prompt.title).toBe('This one here');
  });

  it('accepts empty front matter', () => {
    expect(parsePrompt('---\n---\nbody', { filename: 'e.md' }).template).toBe('body');
  });

  it('throws invalid_prompt naming the file when there is no name at all', () => {
    let error: unknown;
    try {
      parsePrompt('# Title only');
    } catch (caught) {
      error = caught;
    }
    expect(ToolError.isInstance(error) && error.code).toBe('invalid_prompt');
  });

  it('names the file in the error for a bad prompt', () => {
    try {
      parsePrompt('---\nmax_tokens: lots\n---\n', { filename: 'dir/bad-one.md' });
      expect.unreachable();
    } catch (error) {
      expect(ToolError.isInstance(error) && error.code).toBe('invalid_prompt');
      expect((error as Error).message).toContain('dir/bad-one.md');
    }
  });

  it.each([
    ['an unknown key', 'nmae: typo'],
    ['a JavaScript function tag', "name: a\nrun: !!js/function 'function () { return 1 }'"],
    ['a js/function value', "title: !!js/function 'function () { return process }'"],
    ['a custom tag', 'title: !shell rm -rf'],
    ['binary data', 'title: !!binary aGVsbG8='],
    ['a __proto__ key', '__proto__: { polluted: true }'],
    ['a nested __proto__ key', 'input: { type: object, __proto__: { x: 1 } }'],
    ['a duplicate key', 'title: a\ntitle: b'],
    ['a list instead of a mapping', '- a\n- b'],
    ['a syntax error', 'title: [unclosed'],
    ['a non-finite number', 'max_tokens: .inf'],
    ['a bad name', 'name: has spaces'],
    ['a reserved name', 'name: __proto__'],
    ['a bad tool ID', 'tools: ["a:b:c:d"]'],
    ['an input schema that is not a schema', 'input: 5'],
    ['a non-integer budget', 'thinking_budget: 1.5'],
    ['a non-boolean thinking flag', 'thinking: sometimes'],
    ['a step limit of zero', 'max_steps: 0'],
    ['a step limit past the most', 'max_steps: 1001'],
    ['an empty namespace list', 'tool_namespaces: []'],
    ['a tag list with a number', 'tool_tags: [read-only, 5]'],
  ])('throws invalid_prompt for %s', (_, yaml) => {
    expect(errorCodeOf(() => parsePrompt(`---\n${yaml}\n---\nbody`, { filename: 'p.md' }))).toBe(
      'invalid_prompt',
    );
  });

  it('throws invalid_prompt for a billion-laughs alias bomb', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'title: [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
    ].join('\n');
    expect(errorCodeOf(() => parsePrompt(`---\n${bomb}\n---\n`, { filename: 'bomb.md' }))).toBe(
      'invalid_prompt',
    );
  });

  it('throws invalid_prompt for front matter over the size bound', () => {
    const big = `description: "${'x'.repeat(70_000)}"`;
    expect(errorCodeOf(() => parsePrompt(`---\n${big}\n---\n`, { filename: 'big.md' }))).toBe(
      'invalid_prompt',
    );
  });

  it('throws invalid_prompt for a template that does not parse', () => {
    expect(errorCodeOf(() => parsePrompt('{% for x in %}', { filename: 't.md' }))).toBe(
      'invalid_prompt',
    );
    expect(errorCodeOf(() => parsePrompt('{{ a | nosuchfilter }}', { filename: 't.md' }))).toBe(
      'invalid_prompt',
    );
    expect(errorCodeOf(() => parsePrompt("{% include 'secrets' %}", { filename: 't.md' }))).toBe(
      'invalid_prompt',
    );
  });

  it('accepts exactly the names the tool-name rule accepts', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 140 }), (name) => {
        let accepted: boolean;
        try {
          accepted = validatePrompt({ name, template: '' }).name === name;
        } catch (error) {
          if (!ToolError.isInstance(error) || error.code !== 'invalid_prompt') throw error;
          accepted = false;
        }
        const reserved = ['__proto__', 'constructor', 'prototype'].includes(name);
        expect(accepted).toBe(TOOL_NAME_PATTERN.test(name) && !reserved);
      }),
    );
  });
});

describe('validatePrompt', () => {
  it('keeps only the known fields', () => {
    expect(validatePrompt({ name: 'a', template: 't', extra: 1 })).toEqual({
      name: 'a',
      template: 't',
    });
  });

  it('quotes a megabyte name in its errors cut short, not whole', () => {
    const name = 'n'.repeat(1_000_000);
    let message = '';
    try {
      validatePrompt({ name, template: 't' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^prompt "n{140}…": name "n{140}…" breaks the rule/);
    expect(message.length).toBeLessThan(400);
  });

  it('throws invalid_prompt for a missing template or a non-object', () => {
    expect(errorCodeOf(() => validatePrompt({ name: 'a' }))).toBe('invalid_prompt');
    expect(errorCodeOf(() => validatePrompt('a'))).toBe('invalid_prompt');
    expect(errorCodeOf(() => validatePrompt(null))).toBe('invalid_prompt');
  });

  it('throws invalid_prompt for a system prompt that does not parse', () => {
    expect(
      errorCodeOf(() => validatePrompt({ name: 'a', template: '', systemPrompt: '{% if %}' })),
    ).toBe('invalid_prompt');
  });
});

describe('renderPrompt', () => {
  const reviewer = parsePrompt(REVIEWER, { filename: 'code-review.md' });

  it('returns the rendered text, the system prompt apart, and MCP messages', async () => {
    const rendered = await renderPrompt(reviewer, { diff: '+ added', language: 'Rust' });
    const text = '# Code reviewer\n\nReview this diff:\n+ added\n';
    expect(rendered).toEqual({
      text,
      systemPrompt: 'You review Rust code.',
      messages: [{ role: 'user', content: { type: 'text', text } }],
    });
  });

  it('offers the json, default, join, upper, lower and trim filters', async () => {
    const prompt = validatePrompt({
      name: 'f',
      template:
        '{{ obj | json }}|{{ missing | default: "none" }}|{{ list | join: ", " }}|{{ s | upper }}|{{ s | lower }}|[{{ pad | trim }}]',
    });
    const { text } = await renderPrompt(prompt, {
      obj: { a: [1, true, null] },
      list: ['x', 'y'],
      s: 'MiXed',
      pad: '  p  ',
    });
    expect(text).toBe('{"a":[1,true,null]}|none|x, y|MIXED|mixed|[p]');
  });

  it.each([
    ['a constructor call', "{{ constructor.constructor('return process')() }}"],
    ['a constructor chain', '{{ obj.constructor.constructor }}'],
    ['a __proto__ lookup', '{{ obj.__proto__ }}{{ __proto__ }}'],
    ['a toString lookup', '{{ obj.toString }}{{ s.toString }}{{ toString }}'],
    ['a bracketed prototype lookup', "{{ obj['__proto__'] }}{{ obj['constructor'] }}"],
    ['an assigned __proto__', '{% assign __proto__ = obj %}{{ a }}{{ hasOwnProperty }}'],
  ])('renders nothing from the prototype chain for %s', async (_, template) => {
    let text: string;
    try {
      text = (
        await renderPrompt(validatePrompt({ name: 'x', template }), { obj: { a: 1 }, s: 's' })
      ).text;
    } catch (error) {
      // Refusing to parse is as good as rendering nothing.
      expect(ToolError.isInstance(error) && error.code).toBe('invalid_prompt');
      return;
    }
    expect(text).toBe('');
    expect(Object.prototype).not.toHaveProperty('a');
  });

  it('refuses a template that names another file', () => {
    for (const tag of [
      "{% include 'x' %}",
      "{% render '../../etc/passwd' %}",
      "{% layout 'x' %}",
    ]) {
      expect(errorCodeOf(() => validatePrompt({ name: 'x', template: tag }))).toBe(
        'invalid_prompt',
      );
    }
  });

  it('throws invalid_prompt when a loop runs past the time or memory bound', async () => {
    const loops = validatePrompt({
      name: 'loops',
      template:
        '{% for a in (1..1000) %}{% for b in (1..1000) %}{% for c in (1..1000) %}x{% endfor %}{% endfor %}{% endfor %}',
    });
    expect(await rejectionCodeOf(renderPrompt(loops, {}, { limits: { timeLimitMs: 50 } }))).toBe(
      'invalid_prompt',
    );
    const range = validatePrompt({
      name: 'range',
      template: '{% for i in (1..100000000) %}x{% endfor %}',
    });
    expect(await rejectionCodeOf(renderPrompt(range))).toBe('invalid_prompt');
    const doubling = validatePrompt({
      name: 'doubling',
      template:
        "{% assign s = 'xxxxxxxx' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}",
    });
    expect(await rejectionCodeOf(renderPrompt(doubling))).toBe('invalid_prompt');
  });

  it('throws invalid_prompt when the output exceeds its bound', async () => {
    const prompt = validatePrompt({
      name: 'big',
      template: '{% for i in (1..100) %}{{ s }}{% endfor %}',
    });
    const input = { s: 'y'.repeat(1000) };
    expect((await renderPrompt(prompt, input)).text).toHaveLength(100_000);
    expect(
      await rejectionCodeOf(renderPrompt(prompt, input, { limits: { maxOutputLength: 99_999 } })),
    ).toBe('invalid_prompt');
  });

  it('throws invalid_argument for input that is not plain JSON', async () => {
    const prompt = validatePrompt({ name: 'x', template: '{{ a }}' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const bad: unknown[] = [
      { fn: () => 1 },
      { date: new Date() },
      cyclic,
      { n: Number.NaN },
      [1, 2],
      null,
      'text',
      JSON.parse('{"__proto__": {"a": 1}}'),
    ];
    for (const input of bad) {
      expect(await rejectionCodeOf(renderPrompt(prompt, input as Record<string, unknown>))).toBe(
        'invalid_argument',
      );
    }
  });

  it('throws validation with the schema violations when the input breaks the input schema', async () => {
    try {
      await renderPrompt(reviewer, { language: 'Go', strict: 'yes' });
      expect.unreachable();
    } catch (error) {
      expect(ToolError.isInstance(error) && error.code).toBe('validation');
      const keywords = (error as ToolError).errors?.map((e) => e.keyword).sort();
      expect(keywords).toEqual(['required', 'type']);
    }
    await expect(renderPrompt(reviewer, { diff: 'd', strict: true })).resolves.toHaveProperty(
      'text',
    );
  });

  it('validates with the validator given in the options', async () => {
    const validator = createValidator({ maxErrors: 1 });
    try {
      await renderPrompt(reviewer, { language: 1, strict: 'yes' }, { validator });
      expect.unreachable();
    } catch (error) {
      expect(ToolError.isInstance(error) && error.code).toBe('validation');
      expect((error as ToolError).errors).toHaveLength(1);
    }
  });

  it('throws cancelled for an aborted signal', async () => {
    expect(
      await rejectionCodeOf(renderPrompt(reviewer, { diff: 'd' }, { signal: AbortSignal.abort() })),
    ).toBe('cancelled');
  });

  it('renders any JSON string input verbatim, without interpreting it', async () => {
    const prompt = validatePrompt({ name: 'echo', template: '<{{ value }}>' });
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (value) => {
        expect((await renderPrompt(prompt, { value })).text).toBe(`<${value}>`);
      }),
      { numRuns: 200 },
    );
  });
});

describe('toMcpPrompt', () => {
  it('derives arguments from the input schema with descriptions and required flags', () => {
    const reviewer: Prompt = parsePrompt(REVIEWER, { filename: 'code-review.md' });
    expect(toMcpPrompt(reviewer)).toEqual({
      name: 'code-review',
      title: 'Code reviewer',
      description: 'Reviews a pull request',
      arguments: [
        { name: 'language', description: 'Programming language' },
        { name: 'diff', description: 'The diff', required: true },
        { name: 'strict' },
      ],
    });
  });

  it('has no arguments when the prompt has no input schema and its templates read no variable', () => {
    expect(toMcpPrompt({ name: 'plain', template: 'x' })).toEqual({ name: 'plain' });
  });

  it('offers the variables its Liquid templates read when it has no input schema, none required', () => {
    const prompt: Prompt = {
      name: 'greet',
      systemPrompt: 'You write to {{ audience | default: "everyone" }}.',
      template: [
        'Hello {{ name }} from {{ user.city }}!',
        '{% assign shout = name | upcase %}{{ shout }}',
        '{% for item in items %}{{ item }} {{ forloop.index }}{% endfor %}',
        '{{ name }}',
      ].join('\n'),
      messages: [{ role: 'user', content: { type: 'text', text: 'About {{ topic }}' } }],
    };
    expect(toMcpPrompt(prompt).arguments).toEqual([
      { name: 'name' },
      { name: 'user' },
      { name: 'items' },
      { name: 'audience' },
      { name: 'topic' },
    ]);
  });

  it("offers the fields a Go template reads of its data, not those of a with or range body's dot", () => {
    const prompt: Prompt = {
      name: 'report',
      template: [
        '{{ .title }} {{ if .draft }}(draft){{ end }}',
        '{{ range .rows }}{{ .cell }} {{ $.footer }}{{ else }}{{ .empty }}{{ end }}',
        '{{ with .author }}{{ .name }}{{ end }}{{ printf "%s" .tail }}',
      ].join('\n'),
    };
    expect(toMcpPrompt(prompt).arguments).toEqual([
      { name: 'title' },
      { name: 'draft' },
      { name: 'rows' },
      { name: 'footer' },
      { name: 'empty' },
      { name: 'author' },
      { name: 'tail' },
    ]);
  });

  it('lists a prompt whose template does not parse, with no inferred argument', () => {
    expect(toMcpPrompt({ name: 'broken', template: 'Hello {{ name ' })).toEqual({ name: 'broken' });
  });

  it('offers no inferred argument when the input schema names them', () => {
    const prompt: Prompt = {
      name: 'typed',
      template: '{{ name }} {{ extra }}',
      input: { type: 'object', properties: { name: { type: 'string' } } },
    };
    expect(toMcpPrompt(prompt).arguments).toEqual([{ name: 'name' }]);
  });
});

describe('prompt messages', () => {
  const PNG = 'iVBORw0KGgo=';
  const attach: Prompt = {
    name: 'attach',
    input: { type: 'object', properties: { uri: { type: 'string' }, topic: { type: 'string' } } },
    messages: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: '{{ uri }}', mimeType: 'text/plain', text: 'About {{ topic }}.' },
        },
      },
      { role: 'assistant', content: { type: 'text', text: 'Noted: {{ topic | upper }}.' } },
    ],
    template: 'Summarise {{ topic }}.',
  };

  it('renders them, templated, before the body', async () => {
    const rendered = await renderPrompt(attach, { uri: 'docs://owls', topic: 'owls' });
    expect(rendered.text).toBe('Summarise owls.');
    expect(rendered.messages).toEqual([
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: 'docs://owls', mimeType: 'text/plain', text: 'About owls.' },
        },
      },
      { role: 'assistant', content: { type: 'text', text: 'Noted: OWLS.' } },
      { role: 'user', content: { type: 'text', text: 'Summarise owls.' } },
    ]);
  });

  it('leaves out a body that renders empty', async () => {
    const rendered = await renderPrompt({ ...attach, template: '{{ nothing }}' }, { uri: 'a://b' });
    expect(rendered.messages.map((m) => m.content.type)).toEqual(['image', 'resource', 'text']);
    expect(rendered.messages.at(-1)?.role).toBe('assistant');
  });

  it('fails with invalid_argument when a resource URI renders as no URI', async () => {
    expect(await rejectionCodeOf(renderPrompt(attach, { uri: 'not a uri' }))).toBe(
      'invalid_argument',
    );
  });

  it('refuses messages that are not MCP prompt messages, or whose templates do not parse', () => {
    const bad: unknown[] = [
      'a message',
      [{ role: 'system', content: { type: 'text', text: 'x' } }],
      [{ role: 'user', content: { type: 'image', data: PNG } }],
      [{ role: 'user', content: { type: 'text', text: '{% if %}' } }],
    ];
    for (const messages of bad) {
      expect(errorCodeOf(() => validatePrompt({ name: 'p', template: '', messages }))).toBe(
        'invalid_prompt',
      );
    }
  });

  it('reads them from front matter', () => {
    const prompt = parsePrompt(
      [
        '---',
        'name: pic',
        'messages:',
        '  - role: user',
        '    content:',
        '      type: image',
        `      data: "${PNG}"`,
        '      mimeType: image/png',
        '---',
        'Describe it.',
      ].join('\n'),
    );
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
    ]);
  });
});

describe('completePromptArgument', () => {
  const prompt: Prompt = {
    name: 'trip',
    input: {
      type: 'object',
      properties: {
        city: { type: 'string', examples: ['Paris', 'Parma', 'Oslo', 7] },
        mode: { enum: ['train', 'plane'], examples: ['tram'] },
      },
    },
    template: '',
  };

  it('offers enum values, else examples, that start with the value, ignoring case', () => {
    expect(completePromptArgument(prompt, 'city', 'par')).toEqual({
      values: ['Paris', 'Parma'],
      total: 2,
      hasMore: false,
    });
    expect(completePromptArgument(prompt, 'mode', 't').values).toEqual(['train']);
  });

  it('offers nothing for unknown arguments, inherited names or prompts without input', () => {
    expect(completePromptArgument(prompt, 'nope', '').values).toEqual([]);
    expect(completePromptArgument(prompt, 'constructor', '').values).toEqual([]);
    expect(completePromptArgument({ name: 'bare', template: '' }, 'x', '').values).toEqual([]);
  });

  it('caps the values at 100 and says there are more', () => {
    const many = Array.from({ length: 150 }, (_, i) => `v${i}`);
    const big: Prompt = {
      name: 'big',
      input: { type: 'object', properties: { v: { enum: many } } },
      template: '',
    };
    expect(completePromptArgument(big, 'v', 'v')).toMatchObject({ total: 150, hasMore: true });
    expect(completePromptArgument(big, 'v', 'v').values).toHaveLength(100);
  });
});

describe('the seed’s prompt files', () => {
  // The seed's own example, as written: a string input and a Go-template body.
  const summarize = [
    '---',
    'name: summarize',
    'title: Summarize a text',
    'description: Summarizes a text in three sentences.',
    'input:',
    '  type: string',
    '  description: The text to summarize.',
    '---',
    'Summarize the following text in three sentences:',
    '',
    '{{ . }}',
    '',
  ].join('\n');

  it('loads a non-object input, bound to the root value, as one MCP argument', async () => {
    const prompt = parsePrompt(summarize, { filename: 'summarize.md' });
    expect(toMcpPrompt(prompt).arguments).toEqual([
      { name: 'input', required: true, description: 'The text to summarize.' },
    ]);
    const rendered = await renderPrompt(prompt, { input: 'Cats sleep a lot.' });
    expect(rendered.text).toBe(
      'Summarize the following text in three sentences:\n\nCats sleep a lot.\n',
    );
    await expect(renderPrompt(prompt, {})).rejects.toMatchObject({ code: 'validation' });
  });

  it('reads a number input from its string argument', async () => {
    const prompt = parsePrompt('---\nname: twice\ninput: { type: integer }\n---\n{{ . | json }}');
    expect((await renderPrompt(prompt, { input: '21' })).text).toBe('21');
    await expect(renderPrompt(prompt, { input: 'x' })).rejects.toMatchObject({
      code: 'validation',
    });
  });

  it('renders the Go-template forms: fields, paths and pipelines', async () => {
    const prompt = parsePrompt(
      [
        '---',
        'name: forms',
        '---',
        '{{ .user.name | upper }}|{{ .tags | join ", " }}|{{ .missing | default "none" }}|',
        '{{ .note | trim | lower }}|{{ .user | json }}',
      ].join('\n'),
    );
    const rendered = await renderPrompt(prompt, {
      user: { name: 'Ada' },
      tags: ['a', 'b'],
      note: '  LOUD ',
    });
    expect(rendered.text).toBe('ADA|a, b|none|\nloud|{"name":"Ada"}');
  });

  it('refuses at load a Go template that slips into Liquid, naming the line', () => {
    // In Go, `{{ name }}` calls a function "name"; rendering it as a variable would be silent.
    const error = (() => {
      try {
        parsePrompt('---\nname: mixed\n---\n{{ .user.name }}\n{{ name }}', { filename: 'm.md' });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toMatchObject({ code: 'invalid_prompt' });
    expect(String(error)).toContain('m.md:2');
  });

  it('keeps the sandbox: no prototype, no unknown function', async () => {
    const prompt = parsePrompt('---\nname: probe\n---\n[{{ .constructor }}{{ .__proto__ }}]');
    // Go prints a key the data lacks as <no value>; a prototype's members are never keys.
    expect((await renderPrompt(prompt, { a: 1 })).text).toBe('[<no value><no value>]');
    expect(() => parsePrompt('---\nname: call\n---\n{{ .a | nosuch "%s" }}')).toThrow(ToolError);
  });
});
