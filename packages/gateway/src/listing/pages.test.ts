import type { Tool as McpTool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { encodeCursor, page } from '../call-results.js';
import { toolPage } from './pages.js';
import { messageJson } from './wire-text.js';

const listed: McpTool[] = Array.from({ length: 25 }, (_, i) => ({
  name: `t${String(i).padStart(2, '0')}`,
  inputSchema: { type: 'object' },
}));

/** Every page from the start, following the cursors. */
function walk(size: number): { tools: McpTool[]; nextCursor?: string }[] {
  const pages = [];
  let cursor: string | undefined;
  do {
    const next = toolPage(listed, cursor, size);
    pages.push(next);
    cursor = next.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

describe('toolPage', () => {
  it('pages as page() does, and answers a page asked again with the same object', () => {
    const first = walk(10);
    expect(first.map((p) => p.tools.length)).toEqual([10, 10, 5]);
    let cursor: string | undefined;
    for (const made of first) {
      const { items, nextCursor } = page('tools/list', listed, (t) => t.name, cursor, 10);
      expect(made).toEqual(
        nextCursor === undefined ? { tools: items } : { tools: items, nextCursor },
      );
      cursor = nextCursor;
    }
    expect(walk(10)).toEqual(first);
    for (const [i, again] of walk(10).entries()) expect(again).toBe(first[i]);
  });

  it('writes a kept page as JSON.stringify would', () => {
    const [kept] = walk(10);
    const message = { result: kept, jsonrpc: '2.0', id: 3 };
    expect(messageJson(message)).toBe(JSON.stringify(message));
  });

  it('makes a page after a cursor off the page boundaries afresh, and keeps none of it', () => {
    const cursor = encodeCursor('tools/list', 't03');
    const once = toolPage(listed, cursor, 10);
    expect(once.tools.map((t) => t.name)[0]).toBe('t04');
    expect(toolPage(listed, cursor, 10)).not.toBe(once);
  });
});
