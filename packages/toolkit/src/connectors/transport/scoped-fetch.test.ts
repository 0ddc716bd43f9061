import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestScopedFetch } from './scoped-fetch.js';

const call = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } });

/** Reads `chunks` as the answer to a tools/call POST; the server requests it was seen to carry. */
async function watch(chunks: readonly Uint8Array[]): Promise<(string | number)[]> {
  const related: (string | number)[] = [];
  const fetch = requestScopedFetch({
    // The stream under test, as a server would send it; the network is beside the point here.
    fetch: () => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      });
      return Promise.resolve(
        new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
      );
    },
    onRelatedRequest: (_callId, requestId) => related.push(requestId),
  });
  const lifetime = new AbortController();
  const response = await fetch('http://127.0.0.1/mcp', {
    method: 'POST',
    body: call,
    signal: lifetime.signal,
  });
  await response.arrayBuffer();
  return related;
}

/** `text` cut at `cuts` (byte offsets), as a network might deliver it. */
function split(text: string, cuts: readonly number[]): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...at, bytes.length]) {
    chunks.push(bytes.subarray(start, cut));
    start = cut;
  }
  return chunks.filter((chunk) => chunk.length > 0);
}

const request = JSON.stringify({ jsonrpc: '2.0', id: 'e1', method: 'elicitation/create' });
const progress = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress' });
const answer = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { text: 'ünïcödé "method"' } });

describe('requestScopedFetch', () => {
  it('ties the server requests on a call stream to the call however the stream is cut', async () => {
    const stream = [
      'id: p1\r\nretry: 10\r\ndata: \r\n\r\n',
      ': keep-alive\n\n',
      `event: message\nid: p2\ndata: ${request}\n\n`,
      `data: ${progress}\n\n`,
      // One message over two data lines (split between JSON tokens); the answer mentions
      // "method", so it is parsed to tell it from a request.
      `id:\ndata: ${answer.slice(0, 17)}\ndata: ${answer.slice(17)}\n\n`,
    ].join('');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (cuts) => {
        expect(await watch(split(stream, cuts))).toEqual(['e1']);
      }),
      { numRuns: 60 },
    );
  });
});
