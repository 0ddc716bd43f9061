import type { CallToolResult } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mcpResultText, normalizeMcpResult } from './normalize.js';

const text = (value: string) => ({ type: 'text' as const, text: value });

describe('normalizeMcpResult', () => {
  it('prefers structuredContent over the content blocks', () => {
    const result: CallToolResult = { content: [text('ignored')], structuredContent: { a: 1 } };
    expect(normalizeMcpResult(result)).toEqual({ a: 1 });
  });

  it('parses a single text block that is JSON', () => {
    expect(normalizeMcpResult({ content: [text('{"a":[1,2]}')] })).toEqual({ a: [1, 2] });
    expect(normalizeMcpResult({ content: [text(' 42 ')] })).toBe(42);
    expect(normalizeMcpResult({ content: [text('null')] })).toBeNull();
  });

  it('keeps a single text block that is not JSON as the string', () => {
    expect(normalizeMcpResult({ content: [text('The sum is 3.')] })).toBe('The sum is 3.');
    expect(normalizeMcpResult({ content: [text('{not json')] })).toBe('{not json');
    expect(normalizeMcpResult({ content: [text('truely')] })).toBe('truely');
  });

  it('keeps a text block whose integers JSON.parse would read as others as the string', () => {
    const id = '1234567890123456789';
    expect(normalizeMcpResult({ content: [text(id)] })).toBe(id);
    expect(normalizeMcpResult({ content: [text(`{"id":${id}}`)] })).toBe(`{"id":${id}}`);
    expect(normalizeMcpResult({ content: [text('9007199254740991')] })).toBe(9007199254740991);
    expect(normalizeMcpResult({ content: [text(`{"id":"${id}"}`)] })).toEqual({ id });
  });

  it('returns undefined for no content', () => {
    expect(normalizeMcpResult({ content: [] })).toBeUndefined();
  });

  it('keeps a single non-text block as content', () => {
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
    expect(normalizeMcpResult({ content: [image] })).toEqual(image);
  });

  it('returns several blocks as an array, text parsed, media kept', () => {
    const audio = { type: 'audio' as const, data: 'AAAA', mimeType: 'audio/wav' };
    expect(normalizeMcpResult({ content: [text('[1]'), text('hi'), audio] })).toEqual([
      [1],
      'hi',
      audio,
    ]);
  });

  it('round-trips any JSON value sent as a single text block', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const normalised = normalizeMcpResult({ content: [text(JSON.stringify(value))] });
        expect(normalised).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('returns any non-JSON string unchanged', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        let isJson = true;
        try {
          JSON.parse(value);
        } catch {
          isJson = false;
        }
        fc.pre(!isJson);
        expect(normalizeMcpResult({ content: [text(value)] })).toBe(value);
      }),
    );
  });
});

describe('mcpResultText', () => {
  it('joins the text blocks and skips the others', () => {
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
    expect(mcpResultText({ content: [text('a'), image, text('b')] })).toBe('a\nb');
  });
});
