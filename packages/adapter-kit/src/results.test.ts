import { ToolError } from '@toolplane/toolmodel';
import type { RunResult } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import {
  asToolError,
  fromError,
  fromRun as fromRunResult,
  jsonResult,
  upstreamErrorOf,
} from './results.js';

function fromRun(fields: Partial<Pick<RunResult, 'structured' | 'mcpResult'>>) {
  return fromRunResult({ structured: undefined, ...fields });
}

describe('fromRun', () => {
  it('keeps an MCP result as it came, structured content only when it is an object', () => {
    const content = [{ type: 'text' as const, text: 'hi' }];
    expect(
      fromRun({ mcpResult: { content, structuredContent: { n: 1 } }, structured: { n: 1 } }),
    ).toEqual({ content, structuredContent: { n: 1 } });
    expect(
      fromRun({ mcpResult: { content, isError: true, structuredContent: [1] as never } }),
    ).toEqual({ content, isError: true });
  });

  it('renders a local value: a string as it is, an object as JSON and structured content', () => {
    expect(fromRun({ structured: 'plain' })).toEqual({
      content: [{ type: 'text', text: 'plain' }],
    });
    expect(fromRun({ structured: { sum: 5 } })).toEqual({
      content: [{ type: 'text', text: '{"sum":5}' }],
      structuredContent: { sum: 5 },
    });
    expect(fromRun({ structured: [1, 2] })).toEqual({
      content: [{ type: 'text', text: '[1,2]' }],
    });
    expect(fromRun({ structured: 0 })).toEqual({ content: [{ type: 'text', text: '0' }] });
    expect(fromRun({})).toEqual({ content: [] });
  });

  it('keeps a `__proto__` key of a local value as data', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const result = fromRun({ structured: value });
    expect(result.structuredContent).toBe(value);
    expect(result.content).toEqual([
      { type: 'text', text: '{"__proto__":{"polluted":true},"a":1}' },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('fromError', () => {
  it('finds the upstream error result deep in the cause chain and keeps the failure code', () => {
    const upstream = {
      isError: true,
      content: [{ type: 'text', text: 'rate limited upstream' }],
      structuredContent: { retryAfter: 3 },
    };
    const inner = new Error('wrapped', { cause: upstream });
    const error = new ToolError('execution', 'the tool failed', {
      cause: new Error('again', { cause: inner }),
    });
    expect(upstreamErrorOf(error)).toBe(upstream);
    expect(fromError(error)).toEqual({
      content: upstream.content,
      structuredContent: { retryAfter: 3 },
      isError: true,
      code: 'execution',
    });
  });

  it('tells any other failure as `code: message`', () => {
    expect(fromError(new ToolError('timeout', 'took too long'))).toEqual({
      content: [{ type: 'text', text: 'timeout: took too long' }],
      isError: true,
      code: 'timeout',
    });
  });

  it('ignores results that are not errors and ends on a cause chain that loops', () => {
    const loop = new Error('loop');
    (loop as { cause?: unknown }).cause = loop;
    const error = new ToolError('execution', 'failed', {
      cause: { isError: false, content: [] },
    });
    expect(upstreamErrorOf(error)).toBeUndefined();
    const looping = new ToolError('internal', 'looped', { cause: loop });
    expect(upstreamErrorOf(looping)).toBeUndefined();
    expect(fromError(looping).content).toEqual([{ type: 'text', text: 'internal: looped' }]);
  });
});

describe('asToolError', () => {
  it('keeps a ToolError and wraps anything else as internal with its cause and tool ID', () => {
    const own = new ToolError('cancelled', 'stop');
    expect(asToolError(own, 'ns:t')).toBe(own);
    const foreign = new TypeError('bad');
    const wrapped = asToolError(foreign, 'ns:t');
    expect(wrapped.code).toBe('internal');
    expect(wrapped.cause).toBe(foreign);
    expect(wrapped.toolId).toBe('ns:t');
    expect(asToolError('text thrown', 'ns:t').message).toBe('text thrown');
  });
});

describe('jsonResult', () => {
  it('gives a JSON object as text for the model and as structured content', () => {
    expect(jsonResult({ results: [] })).toEqual({
      content: [{ type: 'text', text: '{"results":[]}' }],
      structuredContent: { results: [] },
    });
  });
});
