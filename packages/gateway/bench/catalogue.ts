// The catalogue bench/list.ts lists, and the server that pages it, shared with its stdio upstream
// (big-upstream.ts).
import type { Tool } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';

/** Tools a page, upstream and through the gateway alike (the gateway's default page size). */
export const PAGE = 1_000;

/** `size` tools named `tool_000000`…, each with a description and a small input schema. */
export function catalogue(size: number): Tool[] {
  return Array.from({ length: size }, (_, i) => ({
    name: `tool_${String(i).padStart(6, '0')}`,
    description: `Does thing number ${String(i)} with the given text and a limit.`,
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
      required: ['text'],
    },
  }));
}

/**
 * A bare SDK v2 server paging `tools` by {@link PAGE} (cursor: the index of the page's first
 * tool), as upstreams with big catalogues serve them.
 */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- a bare server, as upstreams often are
export function pagedServer(tools: readonly Tool[]): Server {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- a bare server, as upstreams often are
  const server = new Server({ name: 'big', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const end = start + PAGE;
    return end < tools.length
      ? { tools: tools.slice(start, end), nextCursor: String(end) }
      : { tools: tools.slice(start) };
  });
  return server;
}
