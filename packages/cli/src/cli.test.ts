import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixtureCommand, isAlive } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exited,
  json,
  SERVE_HTTP,
  sourceCommand,
  startCli,
  waitForStderr,
  withoutStartProgress,
  type Ran,
} from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

const fixture = fixtureCommand('stdio');
const SECRET = 'sk-live-very-secret-value';

let dir: string;

function run(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Ran> {
  return runInProcess(args, { ...options, cwd: options.cwd ?? dir });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-cli-'));
  await writeFile(
    join(dir, 'toolplane.config.yaml'),
    [
      'mcpServers:',
      '  fix:',
      `    command: ${JSON.stringify(fixture.command)}`,
      `    args: ${JSON.stringify(fixture.args)}`,
      '    env:',
      '      API_KEY: ${FIXTURE_KEY}',
      '    tools:',
      '      deny: [fail]',
      'prompts: prompts',
      '',
    ].join('\n'),
  );
  await writeFile(
    join(dir, 'broken.config.json'),
    JSON.stringify({
      mcpServers: {
        fix: { command: fixture.command, args: fixture.args },
        gone: { command: join(dir, 'no-such-server'), env: { TOKEN: '${FIXTURE_KEY}' } },
      },
      store: 'memory',
    }),
  );
  // The same store and prompts without upstream servers: store commands need no server.
  await writeFile(join(dir, 'store.config.yaml'), 'prompts: prompts\n');
  await writeFile(
    join(dir, 'bad-url.config.json'),
    JSON.stringify({ mcpServers: { github: { url: 'ftp://x' } } }),
  );
  await writeFile(
    join(dir, 'missing-env.config.yaml'),
    'mcpServers:\n  gh:\n    url: https://x.test/mcp\n    headers:\n      Authorization: Bearer ${NOT_SET_ANYWHERE}\n',
  );
  await rm(join(dir, 'prompts'), { recursive: true, force: true });
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(dir, 'prompts'));
  await writeFile(
    join(dir, 'prompts', 'summarise.md'),
    '---\ndescription: Summarise a text.\ninput:\n  type: object\n  properties:\n    text: { type: string }\n  required: [text]\n---\nSummarise this: {{ text }}\n',
  );
  await writeFile(
    join(dir, 'greet.md'),
    '---\nname: greet\ninput:\n  type: object\n  properties:\n    who: { type: string }\n---\nHello, {{ who }}!\n',
  );
  await writeFile(join(dir, 'notes.txt'), 'remember the milk\n');
  await writeFile(
    join(dir, 'chain.yaml'),
    '- tool: builtin:json_format\n  args: { json: "{\\"b\\":1,\\"a\\":2}", sortKeys: true, indent: 0 }\n- tool: fix:json-text\n  usePrevious: true\n',
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const env = { FIXTURE_KEY: SECRET };

describe('toolplane tools', () => {
  it('lists builtin and upstream tools as JSON, leaving out filtered ones', async () => {
    const ran = await run(['tools', 'list', '--json'], { env });
    expect(ran.code).toBe(0);
    const ids = (json(ran).tools as { id: string }[]).map((t) => t.id);
    expect(ids).toContain('builtin:time_now');
    expect(ids).toContain('fix:add');
    expect(ids).not.toContain('fix:fail');
    expect(json(ran).tools[0]).toMatchObject({
      id: expect.any(String),
      namespace: expect.any(String),
      name: expect.any(String),
    });
  });

  it('prints an aligned table for people', async () => {
    const ran = await run(['tools', 'list', '--namespace', 'builtin'], { env });
    expect(ran.code).toBe(0);
    const lines = ran.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TOOL\s+DESCRIPTION$/);
    const column = lines[0]!.indexOf('DESCRIPTION');
    for (const line of lines.slice(1)) expect(line.slice(column - 2, column)).toBe('  ');
  });

  it('calls a tool with key=value arguments read by its schema', async () => {
    const [human, machine] = await Promise.all([
      run(['tools', 'call', 'fix:echo', 'text=hello there'], { env }),
      run(['tools', 'call', 'fix.add', 'a=2', 'b=40', '--json'], { env }),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toBe('hello there\n');
    expect(human.stderr).toMatch(/fix:echo answered in/);
    expect(machine.code).toBe(0);
    expect(json(machine)).toMatchObject({
      tool: 'fix:add',
      result: { sum: 42 },
      durationMs: expect.any(Number),
    });
  });

  it('calls a builtin tool with --args JSON', async () => {
    const ran = await run(
      ['tools', 'call', 'date_add', '--args', '{"date":"2024-01-31","months":1}', '--json'],
      { env },
    );
    expect(ran.code).toBe(0);
    expect(json(ran).result.date).toBe('2024-02-29');
  });

  it('takes a tool by the name MCP clients see (ns__name) as well as ns:name', async () => {
    const [builtin, upstream, unknown] = await Promise.all([
      run(['tools', 'call', 'builtin__date_add', 'date=2024-01-31', 'months=1', '--json'], { env }),
      run(['tools', 'call', 'fix__add', 'a=2', 'b=40', '--json'], { env }),
      run(['tools', 'call', 'nowhere__add', 'a=2', 'b=40', '--json'], { env }),
    ]);
    expect(builtin.code).toBe(0);
    expect(json(builtin)).toMatchObject({
      tool: 'builtin:date_add',
      result: { date: '2024-02-29' },
    });
    expect(upstream.code).toBe(0);
    expect(json(upstream)).toMatchObject({ tool: 'fix:add', result: { sum: 42 } });
    expect(unknown.code).toBe(3);
  });

  it('exits 4 naming the argument when validation fails', async () => {
    const ran = await run(['tools', 'call', 'fix:add', 'a=2', 'b=many'], { env });
    expect(ran.code).toBe(4);
    // One line, the refusal; a slow fixture start may add its progress line, which is no failure.
    expect(withoutStartProgress(ran.stderr).trim().split('\n')).toHaveLength(1);
    expect(ran.stderr).toMatch(/\/b/);
  });

  it('exits 3 for an unknown tool and for a filtered one', async () => {
    const [unknown, filtered] = await Promise.all([
      run(['tools', 'call', 'fix:nope', '--json'], { env }),
      run(['tools', 'call', 'fix:fail'], { env }),
    ]);
    expect(unknown.code).toBe(3);
    expect(json(unknown).error.code).toBe('not_found');
    expect(filtered.code).toBe(3);
  });

  it('describes and searches tools', async () => {
    const [described, found] = await Promise.all([
      run(['tools', 'describe', 'builtin:json_query', '--json'], { env }),
      run(['tools', 'search', 'time', 'zone', '--json', '--limit', '3'], { env }),
    ]);
    expect(described.code).toBe(0);
    expect(json(described)).toMatchObject({
      id: 'builtin:json_query',
      inputSchema: { type: 'object' },
    });
    expect(found.code).toBe(0);
    expect(json(found).results.length).toBeLessThanOrEqual(3);
    expect(json(found).results[0].id).toBe('builtin:time_now');
  });
});

describe('toolplane prompts and resources', () => {
  it('adds, lists, renders and removes a user prompt in the SQLite store', async () => {
    const store = (args: string[]) => run(['--config', 'store.config.yaml', ...args]);
    const added = await store(['prompts', 'add', 'greet.md', '--json']);
    expect(added.code).toBe(0);
    expect(json(added)).toEqual({ added: { namespace: 'user', name: 'greet' } });
    const [listed, got] = await Promise.all([
      store(['prompts', 'list', '--json']),
      store(['prompts', 'get', 'user:greet', 'who=Ada']),
    ]);
    const ids = (json(listed).prompts as { id: string }[]).map((p) => p.id);
    expect(ids).toEqual(['builtin:summarise', 'user:greet']);
    expect(got.stdout.trim()).toBe('Hello, Ada!');
    const removed = await store(['prompts', 'rm', 'greet']);
    expect(removed.code).toBe(0);
    const again = await store(['prompts', 'rm', 'greet']);
    expect(again.code).toBe(3);
  });

  it('refuses a prompt file that is not UTF-8 and stores nothing', async () => {
    const store = (args: string[]) => run(['--config', 'store.config.yaml', ...args]);
    await writeFile(join(dir, 'latin1.md'), Buffer.from('# Caf\xe9 au lait', 'latin1'));
    const refused = await store(['prompts', 'add', 'latin1.md', '--json']);
    expect(refused.code).not.toBe(0);
    expect(json(refused).error).toEqual({
      code: 'invalid_prompt',
      message: `${join(dir, 'latin1.md')}: not UTF-8 text; save it as UTF-8`,
    });
    const listed = await store(['prompts', 'list', '--json']);
    expect((json(listed).prompts as { id: string }[]).map((p) => p.id)).not.toContain(
      'user:latin1',
    );
  });

  it('adds, lists, reads and removes a user resource', async () => {
    const store = (args: string[]) => run(['--config', 'store.config.yaml', ...args]);
    const added = await store(['resources', 'add', 'notes.txt', '--json']);
    expect(added.code).toBe(0);
    const uri = json(added).added.uri as string;
    expect(uri).toBe('toolplane://resources/notes.txt');
    const [listed, read] = await Promise.all([
      store(['resources', 'list', '--json']),
      store(['resources', 'read', uri]),
    ]);
    expect((json(listed).resources as { uri: string }[]).map((r) => r.uri)).toEqual([uri]);
    // The text as it was added: no newline added to one that ends with it.
    expect(read.stdout).toBe('remember the milk\n');
    expect((await store(['resources', 'rm', uri])).code).toBe(0);
    expect((await store(['resources', 'rm', uri])).code).toBe(3);
  });
});

describe('toolplane chain run', () => {
  it('runs the steps in order, passing the previous result on', async () => {
    const ran = await run(['chain', 'run', 'chain.yaml', '--json'], { env });
    expect(ran.code).toBe(0);
    const out = json(ran);
    expect((out.steps as { tool: string }[]).map((s) => s.tool)).toEqual([
      'builtin:json_format',
      'fix:json-text',
    ]);
    expect(out.result).toEqual({ text: '{"a":2,"b":1}', bytes: 13 });
  });
});

describe('toolplane connectors status', () => {
  it('reports a server that cannot start, exits 5 and never prints secrets', async () => {
    const ran = await run(['--config', 'broken.config.json', 'connectors', 'status', '--json'], {
      env,
    });
    expect(ran.code).toBe(5);
    const rows = json(ran).connectors;
    expect(rows).toEqual([
      expect.objectContaining({ namespace: 'fix', state: 'connected', transport: 'stdio' }),
      expect.objectContaining({
        namespace: 'gone',
        state: expect.stringMatching(/failed|disconnected|connecting/),
        error: expect.any(String),
      }),
    ]);
    expect(ran.stdout + ran.stderr).not.toContain(SECRET);
  });
});

describe('toolplane config errors', () => {
  it('exits 2 with one line naming the key and the problem', async () => {
    const [badUrl, missingEnv, none] = await Promise.all([
      run(['--config', 'bad-url.config.json', 'tools', 'list']),
      run(['--config', 'missing-env.config.yaml', 'tools', 'list']),
      run(['tools', 'list'], { cwd: tmpdir() }),
    ]);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/mcpServers\.github\.url: must be an http\(s\) URL/);
    expect(missingEnv.code).toBe(2);
    expect(missingEnv.stderr).toMatch(
      /mcpServers\.gh\.headers\.Authorization: environment variable NOT_SET_ANYWHERE is not set/,
    );
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--config/);
  });
});

describe('toolplane serve', () => {
  it('serves over HTTP, prints how to connect, and ends its children on SIGTERM', async () => {
    const child = startCli([...SERVE_HTTP], { cwd: dir, env });
    try {
      const [connected, listening] = await Promise.all([
        waitForStderr(child, /fix connected \(pid (\d+)\)/),
        waitForStderr(child, /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/),
      ]);
      const upstream = Number(connected[1]);
      const url = listening[1]!;
      const client = new Client({ name: 'cli-test', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('builtin__time_now');
      expect(names).toContain('fix__add');
      expect(names).not.toContain('fix__fail');
      const result = await client.callTool({ name: 'fix__add', arguments: { a: 1, b: 2 } });
      expect(result.structuredContent).toEqual({ sum: 3 });
      await client.close();
      expect(isAlive(upstream)).toBe(true);
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
      expect(isAlive(upstream)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('serves over stdio with nothing but MCP on stdout', async () => {
    const [command, ...rest] = sourceCommand;
    const transport = new StdioClientTransport({
      command,
      args: [...rest, 'serve', '--stdio'],
      cwd: dir,
      env: { ...(process.env as Record<string, string>), NO_COLOR: '1', ...env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'cli-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const result = await client.callTool({
        name: 'builtin__text_stats',
        arguments: { text: 'One two. Three.' },
      });
      expect(result.structuredContent).toMatchObject({ words: 3, sentences: 2 });
      const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
      expect(prompts).toContain('builtin__summarise');
    } finally {
      await client.close();
    }
    expect(stderr).toMatch(/serving MCP on stdio/);
  });
});
