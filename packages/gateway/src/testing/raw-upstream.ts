// Child-process entry for tests: an MCP server over stdio written by hand (no SDK), for answers an
// SDK server never sends. Its tools: `rpc-error` answers every call with a JSON-RPC error (with
// data), and `odd-result` with a result whose members zod reorders and drops (`_meta` last, an
// own `__proto__`, a content block with annotations).
import { createInterface } from 'node:readline';

const tools = [
  {
    name: 'rpc-error',
    description: 'Answers with a JSON-RPC error.',
    inputSchema: { type: 'object' },
  },
  {
    name: 'odd-result',
    description: 'Answers with an odd result.',
    inputSchema: { type: 'object' },
  },
];

const ODD_RESULT =
  '{"content":[{"type":"text","text":"odd","annotations":{"priority":0.5}}],"__proto__":{"x":1},"structuredContent":{"__proto__":{"y":2},"z":3},"_meta":{"k":1}}';

const write = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line) as {
    id?: string | number;
    method?: string;
    params?: { name?: string };
  };
  if (message.id === undefined || message.method === undefined) return;
  const id = JSON.stringify(message.id);
  const result = (value: string): void => {
    write(`{"jsonrpc":"2.0","id":${id},"result":${value}}`);
  };
  switch (message.method) {
    case 'initialize':
      result(
        JSON.stringify({
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'raw-upstream', version: '0' },
        }),
      );
      return;
    case 'tools/list':
      result(JSON.stringify({ tools }));
      return;
    case 'tools/call':
      if (message.params?.name === 'odd-result') result(ODD_RESULT);
      else
        write(
          `{"jsonrpc":"2.0","id":${id},"error":{"code":-32099,"message":"upstream refused","data":{"why":"raw"}}}`,
        );
      return;
    default:
      if (message.method === 'ping') result('{}');
      else
        write(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`);
  }
});
