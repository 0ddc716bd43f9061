import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureCommand, startHttpFixture } from '@toolplane/fixtures';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { json, runCli, useTempDir, type Command } from './testing/cli-process.js';
import { loadedIn, requiredIn, writeModuleLog } from './testing/module-log.js';
import { startReceiver } from './testing/otlp-receiver.js';

// The bundle the package ships (what an installed `toolplane` runs, built by `pnpm install`)
// loads CommonJS packages imported lazily (the toolkit's file codecs, undici for HTTP servers,
// the YAML parser, the CLI's OpenTelemetry SDK) from chunks of its own or through Node: they
// must work there as they do unbundled.
const dir = useTempDir('bundled-codecs');
const shipped: Command = [
  process.execPath,
  fileURLToPath(new URL('../dist/bundle/toolplane.js', import.meta.url)),
];

describe('the bundled bin reading files', () => {
  it('adds a text file and a file in another encoding as resources', async () => {
    await writeFile(join(dir(), 'toolplane.config.json'), JSON.stringify({ store: 'sqlite' }));
    await writeFile(join(dir(), 'notes.md'), '# Notes\n');
    // "Grüße aus Köln" in ISO-8859-1, which only the encoding detector reads right.
    await writeFile(
      join(dir(), 'latin1.txt'),
      Buffer.from('Grüße aus Köln, schöne Grüße\n', 'latin1'),
    );
    for (const file of ['notes.md', 'latin1.txt']) {
      const ran = await runCli(['resources', 'add', file, '--json'], {
        cwd: dir(),
        command: shipped,
      });
      expect(ran.stderr).toBe('');
      expect(ran.code).toBe(0);
      expect(json(ran)).toMatchObject({ added: { name: file } });
    }
    const read = await runCli(['resources', 'read', 'toolplane://resources/latin1.txt'], {
      cwd: dir(),
      command: shipped,
    });
    expect(read.stdout).toContain('Grüße aus Köln');
  });
});

describe('the bundled bin talking to an HTTP server', () => {
  it('lists the tools of a Streamable HTTP server', async () => {
    const fixture = await startHttpFixture({ server: fixtureCommand('http-dual') });
    try {
      await writeFile(
        join(dir(), 'toolplane.config.json'),
        JSON.stringify({ mcpServers: { remote: { url: fixture.url.href } }, store: 'memory' }),
      );
      const ran = await runCli(['tools', 'list', '-n', 'remote', '--json'], {
        cwd: dir(),
        command: shipped,
      });
      // A slow start may say the server is still starting; nothing may have failed.
      expect(ran.stderr).not.toMatch(/fail|error|not a constructor/i);
      expect(ran.code).toBe(0);
      const ids = (json(ran) as { tools: { id: string }[] }).tools.map((tool) => tool.id);
      expect(ids).toContain('remote:echo');
    } finally {
      await fixture.close();
    }
  });
});

describe('the bundled bin reading YAML', () => {
  it('reads a YAML config, the front matter of its prompts and a YAML chain file', async () => {
    const root = join(dir(), 'yaml');
    await mkdir(join(root, 'prompts'), { recursive: true });
    await writeFile(
      join(root, 'toolplane.config.yaml'),
      'store: memory # a comment, which JSON would refuse\nprompts: prompts\n',
    );
    await writeFile(
      join(root, 'prompts', 'greeter.md'),
      '---\ndescription: Greets someone by name.\ninput:\n  type: object\n  properties:\n    who: { type: string }\n---\nHello, {{ who }}!\n',
    );
    await writeFile(
      join(root, 'steps.yaml'),
      '- tool: builtin:json_format\n  args: { json: "[1, 2]" }\n',
    );
    const prompts = await runCli(['prompts', 'list', '--json'], { cwd: root, command: shipped });
    expect(prompts.stderr).toBe('');
    expect(prompts.code).toBe(0);
    expect(JSON.stringify(json(prompts))).toContain('Greets someone by name.');
    const chain = await runCli(['chain', 'run', 'steps.yaml'], { cwd: root, command: shipped });
    expect(chain.stderr).toContain('1. builtin:json_format');
    expect(chain.code).toBe(0);
    expect(json(chain)).toEqual({ text: '[\n  1,\n  2\n]', bytes: 12 });
  });
});

describe('the bundled bin on its stores', () => {
  it('opens the default SQLite store with the toolkit it bundles, never a second one', async () => {
    const root = join(dir(), 'default-store');
    await mkdir(root, { recursive: true });
    // No store named: the default, a SQLite file under .toolplane.
    await writeFile(join(root, 'toolplane.config.json'), '{}');
    const log = await writeModuleLog(root);
    const [node, ...entry] = shipped;
    const file = join(root, 'modules.log');
    const ran = await runCli(['tools', 'list', '-n', 'builtin', '--json'], {
      cwd: root,
      env: log.env(file),
      command: [node, '--import', log.hooks, '--import', log.required, ...entry],
    });
    expect(ran.code, ran.stderr).toBe(0);
    const lines = await log.read(file);
    const loaded = [...loadedIn(lines), ...requiredIn(lines)];
    // The driver was loaded, so what is missing below is missing from a run that used the store.
    expect(loaded.some((path) => /[\\/]better-sqlite3[\\/]/.test(path))).toBe(true);
    // A store loaded from its own package brought a toolkit, an MCP SDK and a zod of its own.
    const second =
      /[\\/]packages[\\/](?!cli[\\/]dist[\\/]bundle[\\/])[^\\/]+[\\/]dist[\\/]|[\\/]node_modules[\\/](@modelcontextprotocol|zod)[\\/]/;
    expect(loaded.filter((path) => second.test(path))).toEqual([]);
  });

  it('loads pg through the PostgreSQL store, which says why the server cannot be reached', async () => {
    const root = join(dir(), 'postgres-store');
    await mkdir(root, { recursive: true });
    const port = await closedPort();
    await writeFile(
      join(root, 'toolplane.config.json'),
      JSON.stringify({
        store: { postgres: `postgres://toolplane@127.0.0.1:${String(port)}/toolplane` },
      }),
    );
    const ran = await runCli(['tools', 'list'], { cwd: root, command: shipped });
    expect(ran.stderr).toMatch(/cannot open the PostgreSQL store .*ECONNREFUSED/);
    expect(ran.code).toBe(5);
  });
});

describe('the bundled bin exporting traces', () => {
  it("serves with telemetry on and sends a call's span to the OTLP receiver", async () => {
    const receiver = await startReceiver();
    const root = join(dir(), 'traces');
    await mkdir(root, { recursive: true });
    await writeFile(
      join(root, 'toolplane.config.json'),
      JSON.stringify({ store: 'memory', telemetry: { otlp: { url: receiver.url } } }),
    );
    const [command, ...args] = shipped;
    const client = new Client({ name: 'bundled-traces', version: '0.0.0' });
    try {
      await client.connect(
        new StdioClientTransport({ command, args: [...args, 'serve', '--stdio'], cwd: root }),
      );
      const result = await client.callTool({
        name: 'builtin__json_format',
        arguments: { json: '[1]' },
      });
      expect(result.isError).not.toBe(true);
      await receiver.spanNamed('tool builtin:json_format');
    } finally {
      await client.close();
      await new Promise((resolve) => receiver.server.close(resolve));
    }
  });
});

describe('the bundled bin reading approval patterns', () => {
  it('compiles the patterns of a config (picomatch, which toolrun loads lazily)', async () => {
    const root = join(dir(), 'approval');
    await mkdir(root, { recursive: true });
    await writeFile(
      join(root, 'toolplane.config.json'),
      JSON.stringify({
        store: 'memory',
        approval: { tools: ['builtin:json_*'], except: ['builtin:json_format'] },
      }),
    );
    const ran = await runCli(['tools', 'list', '-n', 'builtin', '--json'], {
      cwd: root,
      command: shipped,
    });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const ids = (json(ran) as { tools: { id: string }[] }).tools.map((tool) => tool.id);
    expect(ids).toContain('builtin:json_format');
  });
});

/** A port of 127.0.0.1 that nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
