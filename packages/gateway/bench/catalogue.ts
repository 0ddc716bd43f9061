// The catalogue bench/list.ts lists, shared with its stdio upstream (big-upstream.ts).
import type { Tool } from '@modelcontextprotocol/client';

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
