import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTempDir } from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

// What the toolkit warns of reaches stderr: a server's tool whose name toolplane cannot hold is
// named with the reason, not dropped in silence (the list shows the rest).
const dir = useTempDir('toolkit-warnings');

// A raw 2025-11-25 stdio server listing one good tool and one whose name MCP does not allow.
const SERVER = `
import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') {
    send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: 'odd', version: '1' } } });
  } else if (m.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: m.id, result: { tools: [
      { name: 'good', description: 'fine', inputSchema: { type: 'object' } },
      { name: 'we"ird', description: 'odd name', inputSchema: { type: 'object' } },
    ] } });
  } else {
    send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } });
  }
});
`;

beforeAll(async () => {
  await writeFile(join(dir(), 'server.mjs'), SERVER);
  await writeFile(
    join(dir(), 'toolplane.config.json'),
    JSON.stringify({
      mcpServers: { odd: { command: process.execPath, args: ['server.mjs'], era: '2025' } },
      store: 'memory',
      builtins: false,
    }),
  );
});

describe("the toolkit's warnings", () => {
  it('name a tool a server lists that toolplane cannot hold, once, with the reason', async () => {
    const ran = await runInProcess(['tools', 'list'], { cwd: dir() });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('odd:good');
    const warned = ran.stderr.match(/^warning skipping tool "we"ird" of MCP server "odd": .+$/gm);
    expect(warned).toHaveLength(1);
    expect(warned?.[0]).toMatch(/invalid tool/);
  });
});
