import { createToolkit, ToolError } from '@toolplane/toolkit';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinTools } from './builtins.js';
import { countText } from './heavy/text-stats.js';
import { BUILTIN_LIMITS } from './limits.js';
import { builtinCalls } from './testing/calls.js';

const tools = builtinTools({ pool: { timeoutMs: 60_000 } });
const toolkit = createToolkit({ tools });
afterAll(async () => {
  await toolkit.close();
  await tools.close();
});

const { failure } = builtinCalls(toolkit);

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('json_format bounds', () => {
  it('refuses an answer over its bound from the input shape (8 KB nested 4,000 deep, indent 8)', async () => {
    const error = await failure('json_format', { json: nested(4_000), indent: 8 });
    expect(error.code).toBe('resource_exhausted');
    // The limit and the size the answer would have had, both named.
    expect(error.message).toContain(String(BUILTIN_LIMITS.formatOutputBytes));
    expect(error.message).toContain('127952006');
  });

  it('prints deeper nesting than the call stack allows when the answer is small', async () => {
    const json = nested(50_000);
    const result = await toolkit.callTool('builtin:json_format', { json, indent: 0 });
    expect(result.structured).toEqual({ text: json, bytes: json.length });
  });

  it('prints exactly as JSON.stringify does, sorted keys included', async () => {
    const value = { b: [1, { d: 'é\n"', c: null }], a: {}, e: [], '': -0, 10: 1.5e300, 2: true };
    const json = JSON.stringify(value);
    for (const indent of [0, 1, 4]) {
      const result = await toolkit.callTool('builtin:json_format', { json, indent });
      const text = JSON.stringify(value, null, indent);
      expect(result.structured).toEqual({ text, bytes: Buffer.byteLength(text) });
    }
    const sorted = await toolkit.callTool('builtin:json_format', {
      json,
      sortKeys: true,
      indent: 0,
    });
    expect((sorted.structured as { text: string }).text).toBe(
      '{"":0,"10":1.5e+300,"2":true,"a":{},"b":[1,{"c":null,"d":"é\\n\\""}],"e":[]}',
    );
  });

  it('formats a long text on a worker, and refuses a text longer than its bound', async () => {
    const json = JSON.stringify(Array.from({ length: 4_000 }, (_, i) => ({ i })));
    expect(json.length).toBeGreaterThan(BUILTIN_LIMITS.inlineJsonLength);
    const result = await toolkit.callTool('builtin:json_format', { json, indent: 0 });
    expect(result.structured).toEqual({ text: json, bytes: json.length });
    const long = ' '.repeat(BUILTIN_LIMITS.formatInputLength + 1);
    expect((await failure('json_format', { json: long })).code).toBe('validation');
  });
});

describe('json_query bounds', () => {
  it('queries a document at its bound, and refuses one past it as text or as a value', async () => {
    const most = BUILTIN_LIMITS.queryInputLength;
    // A JSON string of `length` characters, quotes included.
    const text = (length: number): string => JSON.stringify('x'.repeat(length - 2));
    const atBound = await toolkit.callTool('builtin:json_query', {
      expression: 'length(@)',
      json: text(most),
    });
    expect(atBound.structured).toEqual({ result: most - 2 });
    expect((await failure('json_query', { expression: '@', json: text(most + 1) })).code).toBe(
      'validation',
    );
    const data = 'x'.repeat(most - 1);
    const error = await failure('json_query', { expression: 'length(@)', data });
    expect(error.code).toBe('resource_exhausted');
    expect(error.message).toContain(String(most));
  });
});

describe('text_stats on the largest text it accepts', () => {
  it('counts 1M characters, sentences as one pass over the whole would', async () => {
    const sentence = 'Some words here, and a number 3.5 too. ';
    const text = sentence.repeat(Math.floor(BUILTIN_LIMITS.textLength / sentence.length));
    const started = performance.now();
    const result = await toolkit.callTool('builtin:text_stats', { text });
    console.log(
      `text_stats, ${String(text.length)} characters: ${(performance.now() - started).toFixed(0)} ms`,
    );
    const count = text.length / sentence.length;
    expect(result.structured).toMatchObject({ words: count * 8, sentences: count, lines: 1 });
  });

  it('counts sentences in slices exactly, across cuts inside and between sentences', () => {
    const samples = [
      'Mr. Smith went to Washington. He said "Hi!" (quietly.) and left... etc. 5 apples. ',
      'Ça va? 👍🏽 e\u0301t\u00e9 — 中文句子。\r\nNext line.  Two  spaces 🇫🇷🇩🇪 ok.\n',
      'Wait?! Yes.   Really... "Quoted." ) next 3.14 is pi. e.g. this. ',
      'no terminator at all, just words going on and on ',
    ];
    for (const sample of samples) {
      const text = sample.repeat(Math.ceil(20_000 / sample.length));
      let whole = 0;
      for (const part of new Intl.Segmenter('en', { granularity: 'sentence' }).segment(text)) {
        if (part.segment.trim() !== '') whole++;
      }
      expect(countText(text, 'en').sentences).toBe(whole);
    }
  });
});

describe('argument names', () => {
  it('refuses an argument the schema does not declare, naming it and the one meant', async () => {
    const error = await failure('date_add', { date: '2025-01-31', monts: 1 });
    expect(error.code).toBe('validation');
    expect(error.message).toContain('monts');
    expect(error.message).toContain('did you mean "months"?');
    for (const { tool } of tools) {
      expect(tool.inputSchema).toMatchObject({ additionalProperties: false });
    }
  });
});

describe('a value the schema cannot rule out', () => {
  it('fails the call itself with invalid_argument, not under execution', async () => {
    const error = await toolkit.callTool('builtin:date_add', { date: 'garbage', days: 1 }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(ToolError.isInstance(error) && error.code).toBe('invalid_argument');
    expect((error as ToolError).message).toContain('"garbage" is not an ISO 8601 date');
    expect((error as ToolError).toolId).toBe('builtin:date_add');
  });
});
