// What the tests of `serve --http`'s limit on wrong tokens send: an MCP initialize or a dashboard
// login from a given loopback address (each one a source of its own), and a real SDK client.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { postFrom, type PostedFrom } from '@toolplane/dashboard/testing';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 't', version: '0' },
  },
});

/** An `initialize` POSTed to the endpoint `url` from `from`, with `token` as its bearer token. */
export function initializeFrom(url: URL, from: string, token: string): Promise<PostedFrom> {
  return postFrom(url, from, INITIALIZE, {
    authorization: `Bearer ${token}`,
    accept: 'application/json, text/event-stream',
  });
}

/** A dashboard login with `token` from `from`, to the gateway whose endpoint is `url`. */
export function loginFrom(url: URL, from: string, token: string): Promise<PostedFrom> {
  const at = new URL('/ui/api/login', url);
  return postFrom(at, from, JSON.stringify({ token }), { origin: at.origin });
}

/** How many tools an SDK client with `token` lists at `url` (from 127.0.0.1). */
export async function toolCountWith(url: URL, token: string): Promise<number> {
  const client = new Client({ name: 'auth-guesses', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    return (await client.listTools()).tools.length;
  } finally {
    await client.close();
  }
}
