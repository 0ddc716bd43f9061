import { createRequire } from 'node:module';
import { Client, type Tool as McpTool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolId } from './ids.js';
import { fromMcpJson, toMcpJson, validateTool } from './tool.js';

// The real reference server, as a child process over stdio.
const require = createRequire(import.meta.url);
const everythingBin = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

describe('round trip against @modelcontextprotocol/server-everything over stdio', () => {
  let client: Client;
  const tools: McpTool[] = [];

  beforeAll(async () => {
    client = new Client({ name: 'toolmodel-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [everythingBin, 'stdio'],
        stderr: 'ignore',
      }),
    );
    // Raw tools/list pages, unparsed, so the test sees the wire JSON exactly as the server sent it.
    const rawPage = z.looseObject({
      tools: z.array(z.unknown()),
      nextCursor: z.string().optional(),
    });
    for (let cursor: string | undefined; ;) {
      const page = await client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        rawPage,
      );
      tools.push(...(page.tools as McpTool[]));
      cursor = page.nextCursor;
      if (cursor === undefined) break;
    }
  });

  afterAll(async () => {
    await client.close();
  });

  it('lists a realistic set of tools', () => {
    expect(tools.length).toBeGreaterThanOrEqual(10);
    expect(tools.map((tool) => tool.name)).toContain('echo');
  });

  it('parses, validates and re-emits every tool exactly', () => {
    for (const json of tools) {
      const tool = fromMcpJson(json, { namespace: 'everything', tags: ['demo'] });
      validateTool(tool);
      expect(toolId(tool)).toBe(`everything:${json.name}`);
      expect(toMcpJson(tool)).toEqual(json);
    }
  });
});
