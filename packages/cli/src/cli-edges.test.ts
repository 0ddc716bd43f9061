import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureCommand, isAlive } from '@toolplane/fixtures';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  exited,
  json,
  SERVE_HTTP,
  sourceCommand,
  startCli,
  waitForOutput,
  type Ran,
  type Command,
} from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

// The CLI's rough edges: --version, repeated options, key=@- and key=@FILE, resource templates,
// exit codes and error text, run in process; no spinner on a zero-width terminal, and signals
// that always end it, driven through real processes.

const fixture = fixtureCommand('stdio');
const packageVersion = (
  JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/**
 * A bare JSON-RPC MCP server, no SDK: `answer` serves a tool that refuses its arguments with a
 * doubly prefixed InvalidParams error, one that fails, one that never answers, and a resource
 * template; `slow` answers the same after 1.5 s; `silent` never answers anything. Every mode
 * ignores SIGTERM and writes its PID to the file named by its second argument.
 */
const RAW_SERVER = `
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const [mode, pidFile] = process.argv.slice(2);
process.on('SIGTERM', () => {});
setInterval(() => {}, 1 << 30);
if (pidFile) writeFileSync(pidFile, String(process.pid));
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const twice = (text) => 'MCP error -32602: MCP error -32602: ' + text;
createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined || mode === 'silent') return;
  const ok = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
  const fail = (code, message) => send({ jsonrpc: '2.0', id: msg.id, error: { code, message } });
  switch (msg.method) {
    case 'initialize':
      return setTimeout(() => ok({
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {}, resources: {} },
        serverInfo: { name: 'raw', version: '1.0.0' },
      }), mode === 'slow' ? 1500 : 0);
    case 'tools/list':
      return ok({ tools: ['strict', 'boom', 'hang'].map((name) => ({ name, inputSchema: { type: 'object' } })) });
    case 'tools/call':
      if (msg.params.name === 'hang') return;
      if (msg.params.name === 'boom') return fail(-32603, 'the server broke');
      return fail(-32602, twice('the argument is wrong'));
    case 'resources/list':
      return ok({ resources: [] });
    case 'resources/templates/list':
      return ok({ resourceTemplates: [
        { uriTemplate: 'notes://{id}', name: 'note', description: 'A note by its id.', mimeType: 'text/plain' },
      ] });
    case 'resources/read':
      if (msg.params.uri === 'notes://bad') return fail(-32602, twice('no such note'));
      return ok({ contents: [{ uri: msg.params.uri, mimeType: 'text/plain', text: 'note ' + msg.params.uri.slice(8) }] });
    default:
      return fail(-32601, 'no method ' + msg.method);
  }
});
`;

let dir: string;

/** What a test started: children, and the PID files of raw servers (which ignore SIGTERM). */
interface Started {
  readonly children: ChildProcess[];
  readonly pidFiles: string[];
}

/** What the in-process tests start, ended after each; a concurrent test keeps its own. */
const shared: Started = { children: [], pidFiles: [] };

/** Ends whatever is left of what `started` holds. */
async function endAll(started: Started): Promise<void> {
  for (const child of started.children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const file of started.pidFiles.splice(0)) {
    const pid = Number(await readFile(file, 'utf8').catch(() => ''));
    if (pid > 0 && isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
}

/** A list of its own for a concurrent test, ended once the test is over. */
function startedBy(context: { onTestFinished: (fn: () => Promise<void>) => void }): Started {
  const started: Started = { children: [], pidFiles: [] };
  context.onTestFinished(() => endAll(started));
  return started;
}

function run(
  args: readonly string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
): Promise<Ran> {
  return runInProcess(args, {
    cwd: dir,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.stdin === undefined ? {} : { input: options.stdin }),
  });
}

/** A config with one raw server in `mode` (its PID written to `<name>.pid`). */
async function rawConfig(
  name: string,
  mode: 'answer' | 'slow' | 'silent',
  more: Record<string, unknown> = {},
  started: Started = shared,
): Promise<string> {
  const pidFile = join(dir, `${name}.pid`);
  started.pidFiles.push(pidFile);
  const file = `${name}.config.json`;
  await writeFile(
    join(dir, file),
    JSON.stringify({
      mcpServers: { raw: { command: process.execPath, args: ['raw-server.mjs', mode, pidFile] } },
      store: 'memory',
      ...more,
    }),
  );
  return file;
}

/** Resolves with the file's text once it exists; rejects after `ms`. */
function waitForFile(path: string, ms = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir);
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`timed out waiting for ${path}`));
    }, ms);
    const check = (): void => {
      readFile(path, 'utf8').then(
        (text) => {
          if (text === '') return;
          clearTimeout(timer);
          watcher.close();
          resolve(text);
        },
        () => undefined,
      );
    };
    watcher.on('change', check);
    check();
  });
}

/**
 * Delays the CLI's main module by more than its stop deadline, as a very busy machine can: a
 * signal that comes meanwhile finds the servers started early and nothing loaded to stop them.
 */
const SLOW_LOAD = `
import { register } from 'node:module';
const hooks = \`let delayed = false;
export async function resolve(specifier, context, next) {
  // cli.js, or its chunk in a bundle: cli-<hash>.js, or .mjs.
  if (!delayed && /^cli(-[A-Z0-9]+)?[.]m?js$/.test(specifier.split('/').pop())) {
    delayed = true;
    await new Promise((r) => setTimeout(r, 5_500));
  }
  return next(specifier, context);
}\`;
register('data:text/javascript,' + encodeURIComponent(hooks));
`;

/** Starts the CLI in the test folder; `slowLoad` delays its main module (see SLOW_LOAD). */
function start(
  started: Started,
  args: readonly string[],
  options: { slowLoad?: boolean } = {},
): ChildProcess {
  const [node, ...entry] = sourceCommand;
  const command: Command =
    options.slowLoad === true
      ? [node, '--import', join(dir, 'slow-load.mjs'), ...entry]
      : sourceCommand;
  const child = startCli(args, { cwd: dir, command });
  started.children.push(child);
  return child;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-cli-edges-'));
  await writeFile(join(dir, 'raw-server.mjs'), RAW_SERVER);
  await writeFile(join(dir, 'slow-load.mjs'), SLOW_LOAD);
  await writeFile(
    join(dir, 'toolplane.config.json'),
    JSON.stringify({
      mcpServers: {
        fix: { command: fixture.command, args: fixture.args },
        gone: { command: join(dir, 'no-such-server') },
      },
      prompts: 'prompts',
      store: 'memory',
    }),
  );
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(dir, 'prompts'));
  await writeFile(
    join(dir, 'prompts', 'review.md'),
    '---\ndescription: Review a diff.\ninput:\n  type: object\n  properties:\n    diff: { type: string }\n  required: [diff]\n---\nReview this: {{ diff }}\n',
  );
  await writeFile(join(dir, 'change.diff'), '-old\n+new\n');
});

afterEach(async () => {
  await endAll(shared);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('toolplane --version', () => {
  it('prints the package version and exits 0', async () => {
    const [long, short] = await Promise.all([run(['--version']), run(['-V'])]);
    expect(long.code).toBe(0);
    expect(long.stdout.trim()).toBe(packageVersion);
    expect(short.stdout.trim()).toBe(packageVersion);
  });
});

describe('repeated options', () => {
  it('exits 2 naming the option when one that takes a single value is given twice', async () => {
    const [config, namespace, json] = await Promise.all([
      run(['--config', 'a.yaml', '-c', 'toolplane.config.json', 'tools', 'list']),
      run(['tools', 'list', '-n', 'builtin', '--namespace', 'fix']),
      run(['tools', 'list', '-n', 'builtin', '--json', '--json']),
    ]);
    expect(config.code).toBe(2);
    expect(config.stderr).toMatch(/--config <file>' given more than once/);
    expect(config.stdout).toBe('');
    expect(namespace.code).toBe(2);
    expect(namespace.stderr).toMatch(/--namespace <ns>' given more than once/);
    // A flag said twice says the same thing.
    expect(json.code).toBe(0);
  });
});

describe('a search that matches nothing', () => {
  it('quotes a short query whole, and a long one by its start, its length and what search reads', async () => {
    const long = `${'zzyzx '.repeat(300)}\u{1F600}`;
    const [short, pasted] = await Promise.all([
      run(['tools', 'search', 'zzyzx']),
      run(['tools', 'search', long]),
    ]);
    expect(short.code).toBe(0);
    expect(short.stdout.trim()).toBe('no tool matches "zzyzx"');
    expect(pasted.code).toBe(0);
    expect(pasted.stdout.trim()).toBe(
      `no tool matches "${long.slice(0, 60)}…" (1,802 characters; search reads the first 1,000)`,
    );
  });
});

describe('key=@- and key=@FILE', () => {
  it('reads a prompt argument from standard input and from a file', async () => {
    const [piped, file, literal] = await Promise.all([
      run(['prompts', 'get', 'builtin:review', 'diff=@-'], { stdin: '-a\n+b\n' }),
      run(['prompts', 'get', 'review', 'diff=@change.diff', '--json']),
      run(['prompts', 'get', 'review', 'diff=@@-']),
    ]);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain('Review this: -a\n+b\n');
    expect(piped.stdout).not.toContain('@-');
    expect(file.code).toBe(0);
    expect(json(file).text).toContain('Review this: -old\n+new\n');
    expect(literal.stdout).toContain('Review this: @-');
  });

  it('reads a tool argument from standard input', async () => {
    const ran = await run(['tools', 'call', 'fix:echo', 'text=@-', '--json'], {
      stdin: 'from the pipe',
    });
    expect(ran.code).toBe(0);
    expect(JSON.stringify(json(ran))).toContain('from the pipe');
  });

  it('exits 2 for a file that cannot be read, naming it', async () => {
    const ran = await run(['prompts', 'get', 'review', 'diff=@missing.diff', '--json']);
    expect(ran.code).toBe(2);
    expect(json(ran).error.code).toBe('invalid_argument');
    expect(ran.stderr).toMatch(/missing\.diff/);
  });
});

describe('resource templates', () => {
  it('lists the templates and reads a URI one of them matches', async () => {
    const config = await rawConfig('templates', 'answer');
    const [listed, table, read, human, missing] = await Promise.all([
      run(['--config', config, 'resources', 'templates', '--json']),
      run(['--config', config, 'resources', 'templates']),
      run(['--config', config, 'resources', 'read', 'notes://abc', '--json']),
      run(['--config', config, 'resources', 'read', 'notes://xyz#raw']),
      run(['--config', config, 'resources', 'read', 'other://abc']),
    ]);
    expect(listed.code).toBe(0);
    expect(json(listed).resourceTemplates).toEqual([
      {
        namespace: 'raw',
        uriTemplate: 'notes://{id}',
        name: 'note',
        description: 'A note by its id.',
        mimeType: 'text/plain',
      },
    ]);
    expect(table.stdout).toMatch(/^URI TEMPLATE\s+NAMESPACE/);
    expect(table.stdout).toMatch(/notes:\/\/\{id\}\s+raw/);
    expect(read.code).toBe(0);
    expect(json(read)).toMatchObject({ uri: 'notes://abc', text: 'note abc' });
    expect(human.code).toBe(0);
    expect(human.stdout).toBe('note xyz\n');
    expect(missing.code).toBe(3);
    // Written where no folder is: the flag's mistake, typed, not an internal error.
    const nowhere = await run([
      '--config',
      config,
      'resources',
      'read',
      'notes://abc',
      '-o',
      join('no-such-folder', 'note.txt'),
      '--json',
    ]);
    expect(nowhere.code).toBe(2);
    expect(json(nowhere).error.code).toBe('invalid_argument');
  });

  it('is named in --help', async () => {
    const ran = await run(['resources', '--help']);
    expect(ran.stdout).toMatch(/templates\s+list every resource template/);
  });
});

describe('exit codes', () => {
  it('exits 4 for a missing prompt argument and for an argument the tool refuses', async () => {
    const config = await rawConfig('invalid', 'answer');
    const [prompt, date, schema, params] = await Promise.all([
      run(['prompts', 'get', 'review', '--json']),
      run(['tools', 'call', 'builtin:date_add', 'date=not-a-date', 'months=1', '--json']),
      run(['tools', 'call', 'fix:add', 'a=1']),
      run(['--config', config, 'tools', 'call', 'raw:strict']),
    ]);
    expect(prompt.code).toBe(4);
    expect(date.code).toBe(4);
    expect(json(date).error.message).toMatch(/not-a-date/);
    expect(schema.code).toBe(4);
    expect(params.code).toBe(4);
  });

  it('exits 5 for a name in the namespace of a server that could not start', async () => {
    const [tool, prompt, resource, list] = await Promise.all([
      run(['tools', 'call', 'gone:anything', '--json']),
      run(['prompts', 'get', 'gone:anything']),
      run(['resources', 'read', 'notes://x#gone']),
      run(['tools', 'list']),
    ]);
    // A server that could not start is warned of once, with the reason.
    expect(list.stderr.match(/gone/g)).toHaveLength(1);
    expect(list.stderr).toMatch(
      /^warning gone could not connect: could not start "\S+no-such-server": spawn \S+ ENOENT \(no such command: check its spelling, or give its full path\)$/m,
    );
    expect(tool.code).toBe(5);
    expect(json(tool).error.code).toBe('connector_unavailable');
    expect(tool.stderr).toMatch(/server "gone" could not connect/);
    // Said once: the warning at start, then the error, never the same failure twice.
    expect(tool.stderr.match(/gone could not connect/g)).toHaveLength(1);
    expect(prompt.code).toBe(5);
    expect(resource.code).toBe(5);
  });

  it('exits 3 when nothing has the name, 2 for usage, 1 when a tool fails', async () => {
    const config = await rawConfig('codes', 'answer');
    const [unknown, usage, failed] = await Promise.all([
      run(['tools', 'call', 'fix:nope']),
      run(['tools', 'frobnicate']),
      run(['--config', config, 'tools', 'call', 'raw:boom']),
    ]);
    expect(unknown.code).toBe(3);
    expect(usage.code).toBe(2);
    expect(failed.code).toBe(1);
  });
});

describe('error text', () => {
  it('prints each error once, with one MCP error prefix, by any path', async () => {
    const config = await rawConfig('prefix', 'answer');
    const [call, read] = await Promise.all([
      run(['--config', config, 'tools', 'call', 'raw:strict']),
      run(['--config', config, 'resources', 'read', 'notes://bad', '--json']),
    ]);
    for (const ran of [call, read]) {
      const errors = ran.stderr.split('\n').filter((line) => line.startsWith('error'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/MCP error -32602: (the argument is wrong|no such note)/);
      expect(ran.stderr).not.toMatch(/(MCP error -?\d+: ){2}/);
    }
    expect(json(read).error.message).not.toMatch(/(MCP error -?\d+: ){2}/);
  });
});

const hasScript =
  spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0 &&
  spawnSync('stty', ['--version'], { stdio: 'ignore' }).status === 0;

/** Runs the CLI under `script` on a terminal 0 columns wide; its shell prints `cli-pid N` first. */
function underZeroWidthTerminal(started: Started, args: readonly string[]): ChildProcess {
  const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;
  const line = [
    'stty cols 0 rows 0;',
    'echo "cli-pid $$";',
    'exec env COLUMNS=0 LINES=0',
    ...[...sourceCommand, ...args].map(quote),
  ].join(' ');
  const { CI: _ci, NO_COLOR: _noColor, ...env } = process.env;
  const child = spawn('script', ['-qefc', line, '/dev/null'], {
    cwd: dir,
    env: { ...env, TERM: 'xterm-256color' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.children.push(child);
  return child;
}

// The tests of processes below wait mostly (on a server's start, a load, a deadline): they run at
// once, each ending what it started.
describe.skipIf(!hasScript)(
  'on a terminal 0 columns wide (script, stty cols 0)',
  { concurrent: true },
  () => {
    it('prints no spinner while the servers start, only the result', async (context) => {
      const { expect } = context;
      const started = startedBy(context);
      const config = await rawConfig('spinner', 'slow', {}, started);
      const child = underZeroWidthTerminal(started, [
        '--config',
        config,
        'tools',
        'list',
        '-n',
        'builtin',
      ]);
      let bytes = 0;
      let text = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (text.length < 100_000) text += chunk.toString();
      });
      expect(await exited(child)).toBe(0);
      expect(text).toContain('builtin:time_now');
      // The table and the shell's line; a spinner dividing by 0 columns writes megabytes.
      expect(bytes).toBeLessThan(16_384);
    });

    it('ends on SIGTERM while a server never answers', async (context) => {
      const { expect } = context;
      const started = startedBy(context);
      const config = await rawConfig('sigterm', 'silent', {}, started);
      const child = underZeroWidthTerminal(started, ['--config', config, 'tools', 'list']);
      let bytes = 0;
      child.stdout?.on('data', (chunk: Buffer) => (bytes += chunk.length));
      const [match] = await Promise.all([
        waitForOutput(child, 'stdout', /cli-pid (\d+)/),
        waitForFile(join(dir, 'sigterm.pid')),
      ]);
      const cli = Number(match[1]);
      process.kill(cli, 'SIGTERM');
      expect(await exited(child)).not.toBeNull();
      expect(isAlive(cli)).toBe(false);
      expect(bytes).toBeLessThan(16_384);
    });
  },
);

if (!hasScript) {
  describe('on a terminal 0 columns wide', () => {
    it.skip('needs script(1) and stty(1) on this machine, which it has not', () => undefined);
  });
}

describe('SIGTERM', { concurrent: true }, () => {
  /**
   * A "PostgreSQL" on 127.0.0.1 that accepts connections and never says a word, closed once the
   * test is over; `connected` resolves once `count` connections are open.
   */
  async function neverAnswering(context: {
    onTestFinished: (fn: () => Promise<void>) => void;
  }): Promise<{ port: number; connected: (count: number) => Promise<void> }> {
    const sockets = new Set<Socket>();
    const store: Server = createServer((socket) => sockets.add(socket));
    context.onTestFinished(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => store.close(resolve));
    });
    await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
    const address = store.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return {
      port: address.port,
      connected: (count) =>
        new Promise<void>((resolve) => {
          const check = (): void => {
            if (sockets.size >= count) resolve();
          };
          store.on('connection', check);
          check();
        }),
    };
  }

  it('ends serve while a server never answers, and ends the call it was serving, loaded or not', async (context) => {
    const { expect } = context;
    const started = startedBy(context);
    // The hanging call is ended once the drain is over: a short one spares the test ten seconds.
    const config = await rawConfig('serve', 'answer', { http: { drainMs: 300 } }, started);
    const child = start(started, ['--config', config, ...SERVE_HTTP]);
    const [listening] = await Promise.all([
      waitForOutput(child, 'stderr', /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/),
    ]);
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'cli-edges', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(listening[1]!)));
    const hanging = client.callTool({ name: 'raw__hang', arguments: {} }).then(
      () => 'answered',
      () => 'ended',
    );
    const silent = await rawConfig('serve-silent', 'silent', {}, started);
    // Signalled once its server has started, while its own modules are still loading.
    const second = start(started, ['--config', silent, ...SERVE_HTTP], { slowLoad: true });
    await waitForFile(join(dir, 'serve-silent.pid'));
    child.kill('SIGTERM');
    second.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(await exited(second)).toBe(0);
    expect(await hanging).toBe('ended');
    await client.close();
    // The load alone is longer than the default 20 s allows on a busy machine.
  }, 60_000);

  it('ends a command whose store never answers, after the deadline', async (context) => {
    const { expect } = context;
    const started = startedBy(context);
    const { port, connected } = await neverAnswering(context);
    await writeFile(
      join(dir, 'stuck-store.yaml'),
      `store:\n  postgres: postgres://user:pass@127.0.0.1:${port}/db\n`,
    );
    const [command, serve] = [
      start(started, ['--config', 'stuck-store.yaml', 'tools', 'list']),
      start(started, ['--config', 'stuck-store.yaml', ...SERVE_HTTP]),
    ];
    // Both have connected to the store, which will never answer them.
    await connected(2);
    command.kill('SIGTERM');
    serve.kill('SIGTERM');
    const [commandCode, serveCode] = await Promise.all([exited(command), exited(serve)]);
    expect(commandCode).toBe(143);
    expect(serveCode).toBe(143);
  });
});
