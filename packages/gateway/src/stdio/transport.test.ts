import { PassThrough } from 'node:stream';
import { type JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { StdioTransport } from './transport.js';

/** A transport over in-process streams, and what it passed on and wrote back. */
async function open(maxLineBytes?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioTransport(stdin, stdout, maxLineBytes);
  const received: JSONRPCMessage[] = [];
  const written: unknown[] = [];
  let buffered = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) written.push(JSON.parse(line));
  });
  transport.onmessage = (message) => received.push(message);
  await transport.start();
  // Lets the streams deliver what was written.
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { stdin, transport, received, written, settle };
}

const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('StdioTransport', () => {
  it('reads one message per line, however the lines are cut into chunks', async () => {
    const { stdin, received, settle } = await open();
    const text = `${ping(1)}\n${ping(2)}\r\n${JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { s: 'é✓' } })}\n`;
    const bytes = Buffer.from(text);
    // Every byte on its own: lines, CRLF and multi-byte characters all split.
    for (let i = 0; i < bytes.length; i++) stdin.write(bytes.subarray(i, i + 1));
    await settle();
    expect(received).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', method: 'n', params: { s: 'é✓' } },
    ]);
  });

  it('answers what it cannot read with a JSON-RPC error and reads on', async () => {
    const { stdin, received, written, settle } = await open();
    stdin.write('{"jsonrpc": "2.0", "id": 1, "method": \n');
    stdin.write('[]\n');
    stdin.write(`${JSON.stringify({ jsonrpc: '1.0', id: 3, method: 'ping' })}\n`);
    stdin.write('\n   \n');
    stdin.write(`${ping(4)}\n`);
    await settle();
    expect(written).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
      // Not JSON-RPC 2.0, but its ID can be told: the answer names it.
      { jsonrpc: '2.0', id: 3, error: { code: -32600, message: expect.any(String) } },
    ]);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 4, method: 'ping' }]);
  });

  it('refuses an ID past the safe integers with id null, as the HTTP transport does', async () => {
    const { stdin, received, written, settle } = await open();
    stdin.write('{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}\n');
    await settle();
    expect(written).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
    ]);
    expect(received).toEqual([]);
  });

  it('serves a batch’s messages and refuses those that are not JSON-RPC, each on its own', async () => {
    const { stdin, received, written, settle } = await open();
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '1.0', id: 2, method: 'ping' },
      7,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ];
    stdin.write(`${JSON.stringify(batch)}\n`);
    await settle();
    expect(received).toEqual([batch[0], batch[3]]);
    expect(written).toEqual([
      { jsonrpc: '2.0', id: 2, error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
    ]);
  });

  it('refuses a line longer than its limit once, whole or in pieces, and reads the next', async () => {
    const { stdin, received, written, settle } = await open(64);
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'x'.repeat(100) })}\n${ping(1)}\n`);
    for (let i = 0; i < 10; i++) stdin.write('y'.repeat(50));
    stdin.write(`\n${ping(2)}\n`);
    await settle();
    expect(written).toHaveLength(2);
    expect(written[0]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(received.map((m) => ('id' in m ? m.id : undefined))).toEqual([1, 2]);
  });

  it('writes a message as one line, and stops reading when closed', async () => {
    const { stdin, transport, received, written, settle } = await open();
    let closed = 0;
    transport.onclose = () => closed++;
    await transport.send({ jsonrpc: '2.0', id: 9, result: {} });
    await settle();
    expect(written).toEqual([{ jsonrpc: '2.0', id: 9, result: {} }]);
    await transport.close();
    await transport.close();
    expect(closed).toBe(1);
    stdin.write(`${ping(5)}\n`);
    await settle();
    expect(received).toEqual([]);
  });
});
