import { createToolkit } from '@toolplane/toolkit';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinTools } from './builtins.js';
import { countText } from './heavy/text-stats.js';
import { BUILTIN_LIMITS } from './limits.js';
import { builtinCalls } from './testing/calls.js';

// The heavy tools' time limit is heavy/pool.test.ts's subject. Here it is long, so that a machine
// slowed many times over by other work does not turn a refusal under test (a document too deep,
// a result too large) into a timeout: that took five seconds beside two CPU hogs.
const tools = builtinTools({ pool: { timeoutMs: 60_000 } });
const toolkit = createToolkit({ tools });
afterAll(async () => {
  await toolkit.close();
  await tools.close();
});

const { call, codeOf } = builtinCalls(toolkit);

describe('time_now', () => {
  it('answers in the asked time zone, consistently', async () => {
    const now = await call('time_now', { timeZone: 'Asia/Tokyo' });
    expect(now.timeZone).toBe('Asia/Tokyo');
    expect(now.utcOffset).toBe('+09:00');
    expect(now.iso).toBe(`${String(now.date)}T${String(now.time)}+09:00`);
    expect(Math.abs(Number(now.unix) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('rejects an unknown time zone', async () => {
    expect(await codeOf('time_now', { timeZone: 'Mars/Olympus' })).toBe('validation');
  });
});

describe('date_add', () => {
  it('clamps month ends', async () => {
    expect((await call('date_add', { date: '2024-01-31', months: 1 })).date).toBe('2024-02-29');
    expect((await call('date_add', { date: '2023-01-31', months: 1 })).date).toBe('2023-02-28');
  });

  it('keeps days as days across a daylight-saving change', async () => {
    const later = await call('date_add', {
      date: '2025-03-29T12:00',
      days: 1,
      timeZone: 'Europe/Paris',
    });
    expect(later.iso).toBe('2025-03-30T12:00:00+02:00');
  });

  it('subtracts with negative amounts and rejects a date that does not exist', async () => {
    expect((await call('date_add', { date: '2025-01-01', days: -1 })).date).toBe('2024-12-31');
    expect(await codeOf('date_add', { date: '2025-02-30', days: 1 })).toBe('invalid_argument');
  });
  it('reads the years 0000 to 0099 as written, not as 1900 to 1999', async () => {
    const early = await call('date_add', { date: '0050-03-01', days: 1 });
    expect(early).toMatchObject({ date: '0050-03-02', unix: -60584112000 });
    const diff = await call('date_diff', { from: '0001-01-01', to: '0002-01-01', unit: 'days' });
    expect(diff).toMatchObject({ value: 365, from: '0001-01-01T00:00:00.000+00:00' });
  });

  it('writes years outside 0000 to 9999 with their sign, as ISO 8601 expands them', async () => {
    const before = await call('date_add', { date: '2000-01-01', years: -2001 });
    expect(before).toMatchObject({ date: '-000001-01-01', iso: '-000001-01-01T00:00:00+00:00' });
    const after = await call('date_add', { date: '9999-12-31', days: 1 });
    expect(after.date).toBe('+010000-01-01');
    expect((await call('date_add', { date: '-000001-01-01', years: 1 })).date).toBe('0000-01-01');
  });

  it('refuses a sum past the dates JavaScript has with invalid_argument', async () => {
    expect(await codeOf('date_add', { date: '2000-01-01', years: 1e15 })).toBe('invalid_argument');
    expect(await codeOf('date_add', { date: '+275760-09-13T00:00:00Z', days: 1 })).toBe(
      'invalid_argument',
    );
  });

  it('refuses a time of day that would roll over, leap seconds included', async () => {
    for (const date of ['2025-03-30T12:60', '2016-12-31T12:59:60', '2025-03-30T24:00']) {
      expect(await codeOf('date_add', { date, days: 1 })).toBe('invalid_argument');
    }
    const half = await call('date_diff', {
      from: '2025-03-30T12:00',
      to: '2025-03-30T12:00:01.5',
      unit: 'seconds',
    });
    expect(half.to).toBe('2025-03-30T12:00:01.500+00:00');
  });
});

describe('date_diff', () => {
  it('counts whole units, negative when "to" is earlier, with a breakdown', async () => {
    const diff = await call('date_diff', { from: '2024-01-15', to: '2025-03-20', unit: 'months' });
    expect(diff.value).toBe(14);
    expect(diff.breakdown).toMatchObject({ years: 1, months: 2, days: 5 });
    expect((await call('date_diff', { from: '2025-03-20', to: '2025-03-10' })).value).toBe(-10);
  });
});

describe('json_query', () => {
  it('runs a JMESPath expression over a value or over JSON text', async () => {
    const data = {
      items: [
        { name: 'b', price: 12 },
        { name: 'a', price: 30 },
        { name: 'c', price: 3 },
      ],
    };
    const expression = 'items[?price > `10`].name | sort(@)';
    expect(await call('json_query', { expression, data })).toEqual({ result: ['a', 'b'] });
    expect(await call('json_query', { expression, json: JSON.stringify(data) })).toEqual({
      result: ['a', 'b'],
    });
  });

  it('rejects a bad expression and text that is not JSON', async () => {
    expect(await codeOf('json_query', { expression: 'items[?', data: {} })).toBe(
      'invalid_argument',
    );
    expect(await codeOf('json_query', { expression: 'a', json: '{' })).toBe('invalid_argument');
    expect(await codeOf('json_query', { expression: 'a' })).toBe('validation');
  });

  it('finds only the keys a document has, never those of Object.prototype', async () => {
    // As a caller sends it: JSON, whose keys are any text.
    const data: unknown = JSON.parse('{"items": [{"a": 1}, {"a": 2, "constructor": "own"}]}');
    for (const expression of ['constructor', 'toString', '__proto__', 'items[0].valueOf']) {
      expect(await call('json_query', { expression, data })).toEqual({ result: null });
    }
    expect(await call('json_query', { expression: 'items[?constructor].a', data })).toEqual({
      result: [2],
    });
    expect(
      await call('json_query', { expression: '__proto__.x', json: '{"__proto__": {"x": 1}}' }),
    ).toEqual({ result: 1 });
    expect(await call('json_query', { expression: 'items[?@].a', data })).toEqual({
      result: [1, 2],
    });
  });

  it('refuses a document nested too deeply to query with resource_exhausted', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(await codeOf('json_query', { expression: '@', json: deep })).toBe('resource_exhausted');
    expect(await call('json_query', { expression: 'length(@)', json: deep })).toEqual({
      result: 1,
    });
  });

  it('stops an expression that asks for 10^8 values, keeping the event loop free meanwhile', async () => {
    // 347 bytes: each projection multiplies the ten values by ten.
    const expression = `length([]${'.[@,@,@,@,@,@,@,@,@,@][]'.repeat(8)})`;
    // A pool of its own with a small heap: the worker reaches its memory limit in under a
    // second alone, where the default 256 MB took 5 s alone and up to 46 s in a loaded run,
    // most of it collecting garbage near the limit. The refusal is the same, named with the limit.
    const small = builtinTools({ pool: { timeoutMs: 60_000, heapMb: 32 } });
    const smallKit = createToolkit({ tools: small });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      const refused = await builtinCalls(smallKit).failure('json_query', {
        expression,
        data: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      });
      expect(refused.code).toBe('invalid_argument');
      expect(refused.message).toMatch(/needed more than 32 MB of memory/);
    } finally {
      clearInterval(timer);
      await smallKit.close();
      await small.close();
    }
    // The loop went on turning while a worker did (and gave up) the work.
    expect(ticks).toBeGreaterThan(0);
  });

  it('refuses a result larger than its limit, and an expression longer than its limit', async () => {
    const big = 'x'.repeat(BUILTIN_LIMITS.queryResultLength / 2);
    const error = await toolkit
      .callTool('builtin:json_query', { expression: '[@, @, @]', data: big })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/more than the 1000000 allowed/);
    const long = 'a'.repeat(BUILTIN_LIMITS.expressionLength + 1);
    expect(await codeOf('json_query', { expression: long, data: {} })).toBe('validation');
  });

  it('stops when the call is cancelled', async () => {
    const controller = new AbortController();
    const expression = `length([]${'.[@,@,@,@,@,@,@,@,@,@][]'.repeat(7)})`;
    const pending = toolkit
      .callTool(
        'builtin:json_query',
        { expression, data: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] },
        {
          signal: controller.signal,
        },
      )
      .catch((e: unknown) => e);
    controller.abort();
    expect(await pending).toMatchObject({ code: 'cancelled' });
  });
});

describe('json_format', () => {
  it('re-prints indented, minified, or with sorted keys', async () => {
    expect(
      (await call('json_format', { json: '{"b":1,"a":[1,2]}', indent: 0, sortKeys: true })).text,
    ).toBe('{"a":[1,2],"b":1}');
    expect((await call('json_format', { json: '{"a":1}' })).text).toBe('{\n  "a": 1\n}');
  });

  it('names the line and column of a syntax error', async () => {
    const error = await toolkit
      .callTool('builtin:json_format', { json: '{\n  "a": 1,\n  oops\n}' })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/line 3/);
  });
});

describe('text_stats', () => {
  it('counts graphemes, words, sentences, lines and paragraphs', async () => {
    const stats = await call('text_stats', {
      text: 'Hello world. Ça va? 👍🏽\n\nSecond paragraph here.',
    });
    // Unicode sentence breaks (UAX #29) make the emoji line a sentence of its own.
    expect(stats).toMatchObject({ words: 7, sentences: 4, lines: 3, paragraphs: 2 });
    expect(stats.characters).toBe(45);
    expect(stats.bytes).toBeGreaterThan(Number(stats.characters));
  });

  it('counts long text exactly, in slices, as one pass over the whole would', () => {
    const sample = 'Ça va? 👍🏽 e\u0301t\u00e9 — 中文句子。\r\nNext line.  Two  spaces 🇫🇷🇩🇪 ok.\n';
    const text = sample.repeat(400);
    const whole = (granularity: 'grapheme' | 'word') => {
      let count = 0;
      for (const part of new Intl.Segmenter('en', { granularity }).segment(text)) {
        if (granularity === 'grapheme' || part.isWordLike === true) count++;
      }
      return count;
    };
    const counts = countText(text, 'en');
    expect(counts.characters).toBe(whole('grapheme'));
    expect(counts.words).toBe(whole('word'));
  });

  it('counts a text past the inline length on a worker', async () => {
    const text = 'The quick brown fox. '.repeat(4_000);
    expect(text.length).toBeGreaterThan(BUILTIN_LIMITS.inlineTextLength);
    expect(await call('text_stats', { text })).toMatchObject({
      characters: text.length,
      words: 16_000,
      sentences: 4_000,
    });
  });

  it('refuses a text longer than its limit', async () => {
    const text = 'a'.repeat(BUILTIN_LIMITS.textLength + 1);
    expect(await codeOf('text_stats', { text })).toBe('validation');
  });

  it('rejects a malformed locale', async () => {
    expect(await codeOf('text_stats', { text: 'x', locale: 'not a locale!!' })).toBe(
      'invalid_argument',
    );
  });
});
