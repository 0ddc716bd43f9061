import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageJson, rememberJson } from './wire-text.js';

describe('messageJson', () => {
  it('writes a response with a remembered result byte for byte as JSON.stringify does', () => {
    const result = rememberJson({ tools: [{ name: 'a', inputSchema: { type: 'object' } }] });
    for (const message of [
      { result, jsonrpc: '2.0', id: 7 },
      { jsonrpc: '2.0', id: 'x"y', result },
      { jsonrpc: '2.0', result, id: 1, extra: undefined },
    ]) {
      expect(messageJson(message)).toBe(JSON.stringify(message));
    }
  });

  it('writes a shallow copy of a remembered result (as the SDK hands it over) from the text', () => {
    const result = rememberJson({ tools: [{ name: 'b', inputSchema: { type: 'object' } }] });
    const hint = Symbol('cache hint');
    const copy = { ...result, [hint]: { ttlMs: 1 } };
    const message = { result: copy, jsonrpc: '2.0', id: 2 };
    expect(messageJson(message)).toBe(JSON.stringify(message));
    // A copy whose members differ is serialised anew.
    const changed = { ...result, nextCursor: 'x' };
    expect(messageJson({ result: changed, jsonrpc: '2.0', id: 3 })).toBe(
      JSON.stringify({ result: changed, jsonrpc: '2.0', id: 3 }),
    );
  });

  it('answers from the text it remembered, not from the result (shown by breaking the rule)', () => {
    const tool = { name: 'c', inputSchema: { type: 'object' } };
    const result = rememberJson({ tools: [tool] });
    tool.name = 'changed';
    const copy = { ...result };
    expect(messageJson({ result: copy, jsonrpc: '2.0', id: 4 })).toContain('"name":"c"');
  });

  it('serialises a result it was not told to remember', () => {
    const message = { result: { tools: [] }, jsonrpc: '2.0', id: 1 };
    expect(messageJson(message)).toBe(JSON.stringify(message));
    expect(messageJson({ jsonrpc: '2.0', method: 'ping' })).toBe(
      '{"jsonrpc":"2.0","method":"ping"}',
    );
  });

  it('agrees with JSON.stringify on any JSON result and ID', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.oneof(fc.string(), fc.integer()),
        (result, id) => {
          const message = { result: rememberJson(result), jsonrpc: '2.0', id };
          expect(messageJson(message)).toBe(JSON.stringify(message));
        },
      ),
    );
  });
});
