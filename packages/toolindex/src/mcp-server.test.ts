import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createIndex } from './tool-index.js';

const require = createRequire(import.meta.url);

describe('registerMcpTools with a live MCP server over stdio', () => {
  let client: Client;
  let scratch: string;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'toolindex-mcp-'));
    const manifest = require.resolve('@modelcontextprotocol/server-memory/package.json');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(manifest, '..', 'dist', 'index.js')],
      env: { PATH: process.env.PATH ?? '', MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') },
      stderr: 'ignore',
    });
    client = new Client({ name: 'toolindex-test', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('registers the server tools/list result and finds its tools by search', async () => {
    const { tools } = await client.listTools();
    const index = createIndex();
    const entries = index.registerMcpTools('memory', tools);
    expect(entries).toHaveLength(tools.length);
    expect(index.getTool('memory:create_entities').backend).toEqual({
      kind: 'mcp',
      mcp: { serverName: 'memory' },
    });
    const { results } = await index.search('add observations to an entity');
    expect(results[0]?.id).toBe('memory:add_observations');
    // Registering the same list again is a no-op: the definitions are structurally equal.
    const version = index.version;
    index.registerMcpTools('memory', (await client.listTools()).tools);
    expect(index.version).toBe(version);
  });
});
