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
