import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, it, type TestContext } from 'vitest';
import {
  binCommand,
  binEntry,
  exited,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  waitForStderr,
  type Command,
} from './testing/cli-process.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
// Wrapped below in scripts that import its entry, which a startup snapshot would never run.
const fixture = fixtureCommand('stdio', { snapshot: false });
const TOKEN = 'a-token-of-twenty-four-c';

let dir: string;

/**
 * Starts the committed bin (or `command`) in the test folder, stdin piped, stopped once the test
 * is over with SIGTERM, as a user's Ctrl-C or a supervisor would: the CLI ends every server it
 * started (a SIGKILL would orphan them, such as the `hang` server that never answers).
 */
function start(
  context: Pick<TestContext, 'onTestFinished'>,
  args: readonly string[],
  options: { env?: Record<string, string>; command?: Command; cwd?: string } = {},
): ChildProcess {
  const child = startCli(args, {
    command: binCommand,
    ...options,
    cwd: options.cwd ?? dir,
    stdin: 'pipe',
  });
  context.onTestFinished(() => stop(child, 'SIGTERM'));
  return child;
}

async function toolNames(url: string, headers: Record<string, string> = {}): Promise<string[]> {
  const client = new Client({ name: 'serve-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

/** Calls `tool` with 2 + 3 as a one-shot stdio client of `serve --stdio --config <config>`. */
async function addOverStdio(config: string, tool: string): Promise<unknown> {
  const client = new Client({ name: 'serve-test', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [binEntry, 'serve', '--stdio', '--config', join(dir, config)],
      cwd: dir,
      stderr: 'pipe',
    }),
  );
  try {
    return (await client.callTool({ name: tool, arguments: { a: 2, b: 3 } })).structuredContent;
  } finally {
    await client.close();
  }
}

/** The words of a printed shell command line, with `$NAME` expanded in double quotes. */
function shellWords(line: string, env: Record<string, string>): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    const [, double, single, bare] = match;
    if (double !== undefined) {
      words.push(double.replace(/\$([A-Z_]+)/g, (_m, name: string) => env[name] ?? ''));
    } else words.push(single ?? bare ?? '');
  }
  return words;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-serve-'));
  // The fixture server, started only after a while, as one fetched by npx or a slow image is.
  await writeFile(
    join(dir, 'slow.mjs'),
    [
      "import { pathToFileURL } from 'node:url';",
      'const [entry, ...rest] = process.argv.slice(2);',
      'process.argv.splice(2, process.argv.length, ...rest);',
      'setTimeout(() => { void import(pathToFileURL(entry).href); }, 2_500);',
      '',
    ].join('\n'),
  );
  // The fixture's command ends with its entry and mode; what comes before (a loader) stays first.
  const loader = fixture.args.slice(0, -2);
  const [serveEntry = '', mode = ''] = fixture.args.slice(-2);
  const slowArgs = [...loader, join(dir, 'slow.mjs'), serveEntry, mode];
  await writeFile(
    join(dir, 'slow.config.json'),
    JSON.stringify({
      mcpServers: { slow: { command: fixture.command, args: slowArgs } },
      store: 'memory',
    }),
  );
  // The fixture server, noting each start in starts.log.
  await writeFile(
    join(dir, 'count.mjs'),
    [
      "import { appendFileSync } from 'node:fs';",
      "import { pathToFileURL } from 'node:url';",
      'const [log, entry, ...rest] = process.argv.slice(2);',
      "appendFileSync(log, 'started\\n');",
      'process.argv.splice(2, process.argv.length, ...rest);',
      'await import(pathToFileURL(entry).href);',
      '',
    ].join('\n'),
  );
  const countArgs = [...loader, join(dir, 'count.mjs'), join(dir, 'starts.log')];
  await writeFile(
    join(dir, 'count.config.json'),
    JSON.stringify({
      mcpServers: { count: { command: fixture.command, args: [...countArgs, serveEntry, mode] } },
      store: 'memory',
    }),
  );
  await writeFile(
    join(dir, 'hang.config.json'),
    JSON.stringify({
      mcpServers: {
        hang: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
        gone: { command: join(dir, 'no-such-server') },
      },
      store: 'memory',
    }),
  );
  await writeFile(
    join(dir, 'fix.config.json'),
    JSON.stringify({
      mcpServers: { fix: { command: fixture.command, args: fixture.args } },
      store: 'memory',
    }),
  );
  await writeFile(join(dir, 'token.txt'), `${TOKEN}\n`);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Each test starts its own processes and waits mostly on them (a slow server's start, a wait
// bound): the tests run at once.
describe('toolplane serve, start-up', { timeout: 60_000, concurrent: true }, () => {
  it("lists a slow server's tools in the first tools/list after the URL is printed", async (context) => {
    const { expect } = context;
    const child = start(context, [...SERVE_HTTP, '--config', 'slow.config.json']);
    const [, url] = await waitForStderr(child, /listening on (http:\/\/\S+\/mcp)/);
    const names = await toolNames(url!);
    expect(names).toContain('slow__add');
    expect(names).toContain('builtin__time_now');
  });

  it("answers a one-shot stdio client's call to a slow server's tool", async (context) => {
    const { expect } = context;
    expect(await addOverStdio('slow.config.json', 'slow__add')).toEqual({ sum: 5 });
  });

  it("runs code mode with the config's codeMode bounds", async (context) => {
    const { expect } = context;
    await writeFile(
      join(dir, 'code.config.json'),
      JSON.stringify({ mode: 'code', codeMode: { timeoutMs: 300 }, store: 'memory' }),
    );
    const client = new Client({ name: 'serve-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [binEntry, 'serve', '--stdio', '--config', join(dir, 'code.config.json')],
        cwd: dir,
        stderr: 'pipe',
      }),
    );
    try {
      // Far inside the 30 s default: the configured bound ends the run.
      const ran = await client.callTool(
        { name: 'run_code', arguments: { code: 'while (true) {}' } },
        { timeout: 20_000 },
      );
      expect(ran.isError).toBe(true);
      expect(ran._meta?.['io.toolplane/error']).toMatchObject({ code: 'timeout' });
    } finally {
      await client.close();
    }
  });

  it('starts each server once, over stdio as over HTTP', async (context) => {
    const { expect } = context;
    const starts = async (): Promise<number> =>
      (await readFile(join(dir, 'starts.log'), 'utf8')).split('\n').filter(Boolean).length;
    expect(await addOverStdio('count.config.json', 'count__add')).toEqual({ sum: 5 });
    expect(await starts()).toBe(1);

    const child = start(context, [...SERVE_HTTP, '--config', 'count.config.json']);
    expect(await toolNames((await listeningUrl(child)).href)).toContain('count__add');
    expect(await starts()).toBe(2);
  });

  it('reports a server that fails or hangs, and serves the others when the wait is over', async (context) => {
    const { expect } = context;
    const child = start(context, [
      ...SERVE_HTTP,
      '--wait-ms',
      '500',
      '--config',
      'hang.config.json',
    ]);
    const [[, url], [warning]] = await Promise.all([
      waitForStderr(child, /listening on (http:\/\/\S+\/mcp)/),
      waitForStderr(child, /warning still connecting after 500 ms: hang\b.*/),
      waitForStderr(child, /gone (failed|disconnected)/),
    ]);
    expect(warning).not.toMatch(/gone/);
    expect(await toolNames(url!)).toContain('builtin__time_now');
  });
});

describe('toolplane serve, printed commands', { timeout: 60_000, concurrent: true }, () => {
  it('prints an mcpServers stdio entry that an MCP client can start from any directory', async (context) => {
    const { expect } = context;
    // Started the way the example's script used to start it: tsx named bare, from the package.
    const child = start(context, ['serve', '--stdio', '--config', join(dir, 'fix.config.json')], {
      command: [
        process.execPath,
        '--conditions=@toolplane/source',
        '--import',
        'tsx',
        'src/bin.ts',
      ],
      cwd: packageDir,
    });
    // The CLI compiles its whole source through tsx before it serves: far slower than the
    // bundled bin the other tests start (beside eight test workers on a slow host, over 30 s).
    const [, snippet] = await waitForStderr(
      child,
      /\(mcpServers\):\n([\s\S]*?\n {2}\}\n)/,
      100_000,
    );
    child.stdin?.end();
    expect(await exited(child)).toBe(0);
    const printed = JSON.parse(snippet!) as {
      mcpServers: { toolplane: { command: string; args: string[] } };
    };
    const { command, args } = printed.mcpServers.toolplane;
    expect(args.join(' ')).not.toMatch(/--import tsx\b/);

    const elsewhere = await mkdtemp(join(tmpdir(), 'toolplane-elsewhere-'));
    // As Claude Desktop does: the command and args as printed, another directory, default env.
    const client = new Client({ name: 'serve-test', version: '0.0.0' });
    try {
      await client.connect(
        new StdioClientTransport({ command, args, cwd: elsewhere, stderr: 'pipe' }),
      );
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('fix__add');
      expect(names).toContain('builtin__time_now');
    } finally {
      await client.close();
      await rm(elsewhere, { recursive: true, force: true });
    }
  }, 150_000);

  it('prints Inspector commands that the Inspector release they name accepts, token included', async (context) => {
    const { expect } = context;
    const env = { TOOLPLANE_TOKEN: TOKEN };
    const child = start(context, [...SERVE_HTTP, '--config', 'fix.config.json'], { env });
    const [, line] = await waitForStderr(child, /^ {2}npx (.*--method tools\/list.*)$/m);
    const words = shellWords(line!, env);
    expect(words).toContain(`Authorization: Bearer ${TOKEN}`);

    // The Inspector CLI the gateway's tests use: run the printed arguments through it.
    const require = createRequire(new URL('../../gateway/package.json', import.meta.url));
    let manifest: string;
    try {
      manifest = require.resolve('@modelcontextprotocol/inspector-cli/package.json');
    } catch {
      expect(words.slice(0, 5)).toEqual([
        expect.stringMatching(/^@modelcontextprotocol\/inspector@1\./),
        '--cli',
        expect.stringMatching(/^http:/),
        '--transport',
        'http',
      ]);
      return;
    }
    const { version } = JSON.parse(await readFile(manifest, 'utf8')) as { version: string };
    expect(words[0]).toBe(`@modelcontextprotocol/inspector@${version}`);
    const launcher = join(dirname(manifest), 'build', 'cli.js');
    const { stdout } = await promisify(execFile)(process.execPath, [launcher, ...words.slice(1)], {
      timeout: 60_000,
      // 1.0.3 reads its package.json relative to the working directory: run it where that holds.
      cwd: join(dirname(manifest), 'build'),
    });
    const tools = (JSON.parse(stdout) as { tools: { name: string }[] }).tools;
    expect(tools.map((tool) => tool.name)).toContain('fix__add');
  });
});

describe('toolplane serve, token', { timeout: 60_000, concurrent: true }, () => {
  it('refuses a token under 16 characters from the flag and from the environment', async (context) => {
    const { expect } = context;
    const fromFlag = start(context, [
      ...SERVE_HTTP,
      '--token',
      'short',
      '--config',
      'fix.config.json',
    ]);
    const fromEnv = start(context, [...SERVE_HTTP, '--config', 'fix.config.json'], {
      env: { TOOLPLANE_TOKEN: 'short' },
    });
    let stderr = '';
    fromFlag.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exited(fromFlag)).toBe(2);
    expect(await exited(fromEnv)).toBe(2);
    expect(stderr).toMatch(/--token: the token must be at least 16 characters/);
  });

  it('reads the token from --token-file and requires it', async (context) => {
    const { expect } = context;
    const child = start(context, [
      ...SERVE_HTTP,
      '--token-file',
      'token.txt',
      '--config',
      'fix.config.json',
    ]);
    const [, url] = await waitForStderr(child, /listening on (http:\/\/\S+\/mcp)/);
    const refused = await fetch(url!, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);
    expect(await toolNames(url!, { Authorization: `Bearer ${TOKEN}` })).toContain('fix__add');
  });
});
