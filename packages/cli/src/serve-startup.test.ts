// `toolplane serve --http` while a server is still starting: the port is open (and /healthz says
// not ready), but no MCP client is answered from a partial tool list.
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  binCommand,
  listeningUrl,
  startCli,
  stop,
  useTempDir,
  waitForStderr,
} from './testing/cli-process.js';
import { freePorts } from './testing/fleet.js';

const tempDir = useTempDir('serve-startup');
const children: ChildProcess[] = [];
// Wrapped below in scripts that import its entry, which a startup snapshot would never run.
const fixture = fixtureCommand('stdio', { snapshot: false });

beforeAll(async () => {
  const dir = tempDir();
  // The fixture server, started only once the test creates the gate file: an upstream as slow
  // as the test wants (a cold npx download, a container pulling its image).
  await writeFile(
    join(dir, 'gated.mjs'),
    [
      "import { existsSync } from 'node:fs';",
      "import { pathToFileURL } from 'node:url';",
      'const [gate, entry, ...rest] = process.argv.slice(2);',
      'process.argv.splice(2, process.argv.length, ...rest);',
      'const timer = setInterval(() => {',
      '  if (!existsSync(gate)) return;',
      '  clearInterval(timer);',
      '  void import(pathToFileURL(entry).href);',
      '}, 20);',
      '',
    ].join('\n'),
  );
  const loader = fixture.args.slice(0, -2);
  const [serveEntry = '', mode = ''] = fixture.args.slice(-2);
  const args = [...loader, join(dir, 'gated.mjs'), join(dir, 'gate'), serveEntry, mode];
  await writeFile(
    join(dir, 'gated.config.json'),
    JSON.stringify({
      mcpServers: { gated: { command: fixture.command, args } },
      store: 'memory',
      waitMs: 60_000,
    }),
  );
});

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stop(child, 'SIGTERM')));
});

describe('toolplane serve --http before every server is in', { timeout: 60_000 }, () => {
  it('holds an early tools/list until the slow server is in, never a partial list', async () => {
    const dir = tempDir();
    // Known before the CLI prints it: the request must arrive before the servers are in.
    const [port = 0] = await freePorts(1);
    const child = startCli(
      ['serve', '--http', '--port', String(port), '--config', 'gated.config.json'],
      { command: binCommand, cwd: dir, stdin: 'pipe' },
    );
    children.push(child);
    // The gateway listens before it starts the servers.
    await waitForStderr(child, /gated connecting/);
    const listening = listeningUrl(child);
    const url = new URL(`http://127.0.0.1:${String(port)}/mcp`);
    const health = await fetch(new URL('/healthz', url));
    expect(health.status).toBe(503);
    const client = new Client({ name: 'startup-test', version: '0.0.0' });
    const names = client
      .connect(new StreamableHTTPClientTransport(url))
      .then(() => client.listTools())
      .then((listed) => listed.tools.map((tool) => tool.name));
    // Answered while the MCP request waits: the port is served, the request held.
    expect((await fetch(new URL('/healthz', url))).status).toBe(503);
    await writeFile(join(dir, 'gate'), '');
    try {
      const listed = await names;
      expect(listed).toContain('gated__add');
      expect(listed).toContain('builtin__time_now');
    } finally {
      await client.close();
    }
    expect((await listening).port).toBe(String(port));
  });
});
