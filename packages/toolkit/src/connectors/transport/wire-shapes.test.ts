import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isCallToolResult, parseJSONRPCMessage } from '@modelcontextprotocol/client';
import { isToolResult, readMessage } from './wire-shapes.js';

/** What a reader makes of a line: the message as JSON, or that it threw. */
function outcome(read: (value: unknown) => unknown, line: string): string {
  try {
    return JSON.stringify(read(JSON.parse(line)));
  } catch {
    return 'threw';
  }
}

const LINES = [
  '{"result":{"content":[{"type":"text","text":"x"}]},"jsonrpc":"2.0","id":1}',
  '{"jsonrpc":"2.0","id":"toolplane:7","result":{"content":[],"structuredContent":{"__proto__":2}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"content":[],"__proto__":{"x":1}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":5},"content":[]}}',
  '{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"a":1}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"content":[]},"extra":1}',
  '{"jsonrpc":"2.0","id":1.5,"result":{"content":[]}}',
  '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}',
  '{"jsonrpc":"2.0","id":null,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"result":[]}',
  '{"jsonrpc":"2.0","id":1,"result":null}',
  '{"jsonrpc":"1.0","id":1,"result":{}}',
  '{"jsonrpc":"2.0","result":{}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":{"__proto__":1},"x":2}}',
  '{"jsonrpc":"2.0","id":"a","method":"x","params":{"b":1,"_meta":{"__proto__":{"q":1}}}}',
  '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
  '{"__proto__":{"jsonrpc":"2.0"},"id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":"server-discover-probe-1","error":{"code":-32601,"message":"Method not found"}}',
  '{"error":{"message":"m","data":null,"code":-1},"id":3,"jsonrpc":"2.0"}',
  '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}',
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","__proto__":{"a":1}}}',
  '{"jsonrpc":"2.0","id":1,"error":[]}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"},"result":{}}',
  '{"method":"notifications/tools/list_changed","jsonrpc":"2.0"}',
  '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"__proto__":1}}}',
  '{"jsonrpc":"2.0","method":"notifications/message","params":{"__proto__":{"level":"x"}}}',
  '{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":{},"progress":1}}',
  '{"jsonrpc":"2.0","method":"x","params":null}',
  '{"jsonrpc":"2.0","method":"x","params":[1]}',
  '{"jsonrpc":"2.0","method":7}',
  '{"jsonrpc":"2.0","id":4,"method":"ping"}',
  '{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}',
  '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
  '{"jsonrpc":"2.0","id":null,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}',
  '[]',
  '7',
];

describe('readMessage', () => {
  it('reads every line as the SDK does: the same message, or a throw', () => {
    for (const line of LINES) {
      expect(outcome(readMessage, line), line).toBe(outcome(parseJSONRPCMessage, line));
    }
  });

  it('agrees with the SDK on generated result responses', () => {
    const member = fc.oneof(
      fc.constantFrom('jsonrpc', 'id', 'result', '_meta', '__proto__', 'content', 'isError'),
      fc.string(),
    );
    const json = fc.jsonValue({ maxDepth: 3 });
    const result = fc.oneof(json, fc.dictionary(member, json, { maxKeys: 4 }));
    const message = fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0'),
        id: fc.oneof(fc.integer(), fc.string(), fc.double(), fc.constant(null)),
        result,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        message,
        fc.dictionary(member, json, { maxKeys: 1 }),
        fc.boolean(),
        (base, more, add) => {
          const line = JSON.stringify(add ? { ...base, ...more } : base);
          expect(outcome(readMessage, line)).toBe(outcome(parseJSONRPCMessage, line));
        },
      ),
    );
  });

  it('agrees with the SDK on generated errors, requests and notifications', () => {
    const member = fc.oneof(
      fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'error', 'code', 'message', 'data'),
      fc.constantFrom('_meta', '__proto__', 'progressToken'),
      fc.string(),
    );
    const json = fc.jsonValue({ maxDepth: 3 });
    const id = fc.oneof(fc.integer(), fc.string(), fc.double(), fc.constant(null));
    const body = fc.oneof(json, fc.dictionary(member, json, { maxKeys: 4 }));
    const error = fc.oneof(
      body,
      fc.record(
        {
          code: fc.oneof(fc.integer(), fc.double(), fc.string()),
          message: fc.oneof(fc.string(), fc.integer()),
          data: json,
        },
        { requiredKeys: [] },
      ),
    );
    const message = fc.oneof(
      fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0'), id, error }, { requiredKeys: ['error'] }),
      fc.record(
        {
          jsonrpc: fc.constantFrom('2.0', '1.0'),
          id,
          method: fc.oneof(fc.string(), fc.integer()),
          params: body,
        },
        { requiredKeys: ['method'] },
      ),
    );
    fc.assert(
      fc.property(
        message,
        fc.dictionary(member, json, { maxKeys: 1 }),
        fc.boolean(),
        (base, more, add) => {
          const line = JSON.stringify(add ? { ...base, ...more } : base);
          expect(outcome(readMessage, line)).toBe(outcome(parseJSONRPCMessage, line));
        },
      ),
    );
  });
});

describe('isToolResult', () => {
  it('says what the SDK says of results', () => {
    const results: unknown[] = [
      { content: [] },
      { content: [{ type: 'text', text: 'a' }], isError: true },
      { content: [{ type: 'text', text: 'a', extra: 1 }] },
      { content: [{ type: 'text', text: 1 }] },
      { content: [{ type: 'text', text: 'a', annotations: { priority: 9 } }] },
      { content: [{ type: 'text', text: 'a', _meta: [] }] },
      { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] },
      { content: [{ type: 'image' }] },
      { content: [], isError: 'yes' },
      { content: [], isError: null },
      { content: [], _meta: { a: 1 } },
      { content: [], _meta: 1 },
      { content: [], structuredContent: { a: 1 } },
      { content: {} },
      {},
      [],
      null,
      JSON.parse('{"content":[],"__proto__":{"content":1}}'),
    ];
    for (const result of results) {
      expect(isToolResult(result), JSON.stringify(result)).toBe(isCallToolResult(result));
    }
  });

  it('agrees with the SDK on generated results', () => {
    const block = fc.oneof(
      fc.record({
        type: fc.constantFrom('text', 'image'),
        text: fc.oneof(fc.string(), fc.integer()),
      }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const result = fc.record(
      {
        content: fc.oneof(fc.array(block, { maxLength: 3 }), fc.jsonValue({ maxDepth: 1 })),
        isError: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 0 })),
        structuredContent: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(result, (value) => {
        const parsed: unknown = JSON.parse(JSON.stringify(value));
        expect(isToolResult(parsed)).toBe(isCallToolResult(parsed));
      }),
    );
  });
});
