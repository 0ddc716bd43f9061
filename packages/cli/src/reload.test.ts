import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixtureCommand, isAlive } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, it, type TestContext } from 'vitest';
import {
  binCommand,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  waitForStderr,
} from './testing/cli-process.js';

const fixture = fixtureCommand('stdio');
const TOKEN = 'a-reload-token-of-24-chr';
const auth = { authorization: `Bearer ${TOKEN}` };

let root: string;
let count = 0;

/** How a test has what it started ended once it is over. */
type Finish = Pick<TestContext, 'onTestFinished'>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolplane-reload-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A config with the fixture server under each name (an `env` entry makes a changed server). */
function config(
  servers: Record<
    string,
    { env?: Record<string, string>; command?: string; tools?: { deny: string[] } }
  >,
  extra: Record<string, unknown> = {},
): string {
  const mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, server]) => [
      name,
      {
        command: server.command ?? fixture.command,
        args: server.command === undefined ? fixture.args : [],
        ...(server.env === undefined ? {} : { env: server.env }),
        ...(server.tools === undefined ? {} : { tools: server.tools }),
      },
    ]),
  );
  return JSON.stringify({ mcpServers, store: 'memory', builtins: false, ...extra }, null, 2);
}

interface Served {
  readonly child: ChildProcess;
  readonly file: string;
  readonly url: URL;
  /** Everything the CLI has printed on stderr so far. */
  readonly stderr: () => string;
  /** Writes the config file in place (truncate, then write). */
  readonly write: (text: string) => Promise<void>;
  /** Saves the config as editors that rename a new file over the old one do. */
  readonly replace: (text: string) => Promise<void>;
}

/**
 * Starts `toolplane serve --http` on a config of its own, with the token; stopped with SIGTERM
 * once the test is over (the CLI ends the servers it started).
 */
async function serve(context: Finish, text: string): Promise<Served> {
  const dir = join(root, `t${String(++count)}`);
  await rm(dir, { recursive: true, force: true });
  await import('node:fs/promises').then((fs) => fs.mkdir(dir));
  const file = join(dir, 'toolplane.config.json');
  await writeFile(file, text);
  const child = startCli([...SERVE_HTTP, '--config', file], {
    command: binCommand,
    cwd: dir,
    env: { TOOLPLANE_TOKEN: TOKEN },
  });
  context.onTestFinished(() => stop(child, 'SIGTERM'));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await listeningUrl(child);
  let saves = 0;
  return {
    child,
    file,
    url,
    stderr: () => stderr,
    write: (next) => writeFile(file, next),
    replace: async (next) => {
      const temporary = join(dir, `.toolplane.config.json.${String(++saves)}.tmp`);
      await writeFile(temporary, next);
      await rename(temporary, file);
    },
  };
}

/** Closes `client` once the test is over (before its gateway stops: hooks run last first). */
function closeAfter(context: Finish, client: Client): void {
  context.onTestFinished(async () => {
    await client.close().catch(() => undefined);
  });
}

/** An MCP session to the gateway, closed after the test. */
async function session(context: Finish, url: URL): Promise<Client> {
  const client = new Client({ name: 'reload-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: auth } }));
  closeAfter(context, client);
  return client;
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

/**
 * Resolves once `client`'s tool list satisfies `check`, re-listing on each `list_changed` it
 * hears (and once at first); rejects after `ms`.
 */
async function toolsWhen(
  client: Client,
  check: (names: string[]) => boolean,
  ms = 20_000,
): Promise<string[]> {
  let wake: () => void = () => undefined;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    wake();
  });
  const deadline = Date.now() + ms;
  for (;;) {
    const heard = new Promise<void>((resolve) => (wake = resolve));
    const names = await toolNames(client);
    if (check(names)) return names;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`tools never matched; last: ${names.join(', ')}`);
    await Promise.race([heard, new Promise((resolve) => setTimeout(resolve, left))]);
  }
}

async function health(url: URL): Promise<{
  connectors: { namespace: string; pid?: number; state: string; error?: string }[];
  config?: { error?: string; reloads: number; restartPending?: string[] };
}> {
  const answer = await fetch(new URL('/healthz', url), { headers: auth });
  return (await answer.json()) as Awaited<ReturnType<typeof health>>;
}

/** Resolves once `pid` has exited; rejects after `ms`. */
async function gone(pid: number, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${String(pid)} still runs`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// Each test serves a config of its own and waits mostly on the file watch and the servers it
// starts: the tests run at once.
describe('toolplane serve, config reload', { timeout: 90_000, concurrent: true }, () => {
  it('connects added servers and closes removed ones while a session stays open', async (context) => {
    const { expect } = context;
    const served = await serve(context, config({ a: {} }));
    const client = await session(context, served.url);
    expect(await toolNames(client)).toContain('a__add');
    const pid = (await health(served.url)).connectors.find((c) => c.namespace === 'a')?.pid;
    expect(pid).toBeTypeOf('number');

    const heard = new Promise<void>((resolve) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        resolve();
      });
    });
    // Saved the way editors that rename a new file over the old one save.
    await served.replace(config({ b: {} }));
    await heard;
    const names = await toolsWhen(client, (n) => n.includes('b__add'));
    expect(names.some((name) => name.startsWith('a__'))).toBe(false);
    await gone(pid!);
    expect((await health(served.url)).connectors.map((c) => c.namespace)).toEqual(['b']);
  });

  it('lets a call in flight finish on the server it started on while that server is replaced', async (context) => {
    const { expect } = context;
    const served = await serve(context, config({ a: {} }));
    const client = await session(context, served.url);
    const before = (await health(served.url)).connectors[0]?.pid;
    let begun: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (begun = resolve));
    const call = client.callTool(
      { name: 'a__slow', arguments: { ms: 1_500 } },
      {
        onprogress: () => {
          begun();
        },
      },
    );
    await started;
    const reloaded = waitForStderr(served.child, /config reloaded from \S+: ~a/);
    await served.write(config({ a: { env: { VERSION: '2' } } }));
    await reloaded;
    expect((await call).content).toEqual([{ type: 'text', text: 'done' }]);
    await gone(before!);
    await toolsWhen(client, (names) => names.includes('a__add'));
    const after = (await health(served.url)).connectors[0]?.pid;
    expect(after).not.toBe(before);
  });

  it("keeps a session's resource subscription across the replacement of its server", async (context) => {
    const { expect } = context;
    const served = await serve(context, config({ a: {} }));
    const client = await session(context, served.url);
    const { resources } = await client.listResources();
    const watched = resources.find((r) => r.uri.includes('watched'))?.uri;
    expect(watched).toBeDefined();
    await client.subscribeResource({ uri: watched! });
    const before = (await health(served.url)).connectors[0]?.pid;
    const reloaded = waitForStderr(served.child, /config reloaded from \S+: ~a/);
    await served.write(config({ a: { env: { VERSION: '2' } } }));
    await reloaded;
    await gone(before!);
    await toolsWhen(client, (names) => names.includes('a__touch'));
    const updated = new Promise<string>((resolve) => {
      client.setNotificationHandler('notifications/resources/updated', (note) => {
        resolve(note.params.uri);
      });
    });
    await client.callTool({ name: 'a__touch', arguments: {} });
    const late = new Promise<string>((resolve) =>
      setTimeout(() => {
        resolve('no update');
      }, 15_000),
    );
    expect(await Promise.race([updated, late])).toBe(watched);
  });

  it('keeps the running config on a half-written edit, says why once, and applies the next good one', async (context) => {
    const { expect } = context;
    const served = await serve(context, config({ a: {} }));
    const client = await session(context, served.url);
    const refused = waitForStderr(served.child, /config edit not applied[^\n]*not valid JSON/);
    const half = config({ a: {}, b: {} }).slice(0, 40);
    // A slow save: truncated, then written once the watch's quiet time is over. The empty file
    // in between is not reported unless it stays empty for half a second, which a machine busy
    // enough can make it do: only the broken text's refusals are counted below.
    await served.write('');
    await delay(300);
    await served.write(half);
    await refused;
    // The same broken text saved again is not news.
    await served.write(half);
    expect((await health(served.url)).config?.error).toMatch(/toolplane\.config\.json/);
    expect(await toolNames(client)).toContain('a__add');

    const reloaded = waitForStderr(served.child, /config reloaded from \S+: \+b/);
    const restart = waitForStderr(served.child, /http\.port changed[^\n]*restart/);
    await served.write(config({ a: {}, b: {} }, { http: { port: 9 } }));
    await Promise.all([reloaded, restart]);
    await toolsWhen(client, (names) => names.includes('b__add') && names.includes('a__add'));
    expect(served.stderr().match(/config edit not applied[^\n]*not valid JSON/g)).toHaveLength(1);
    const details = (await health(served.url)).config;
    expect(details?.error).toBeUndefined();
    expect(details?.restartPending).toEqual(['http.port']);
  });

  it('keeps the running config while the file is emptied or gone, and clears the error when it is back', async (context) => {
    const { expect } = context;
    const text = config({ a: {} });
    const served = await serve(context, text);
    const client = await session(context, served.url);
    const refused = waitForStderr(served.child, /config edit not applied[^\n]*empty/);
    await served.write('');
    await refused;
    expect((await health(served.url)).config?.error).toMatch(/empty/);
    expect(await toolNames(client)).toContain('a__add');

    const deleted = waitForStderr(served.child, /config edit not applied[^\n]*cannot read it/);
    await rm(served.file);
    await deleted;
    // The same text as before it went: nothing to change, and the error is over.
    const back = waitForStderr(served.child, /config reloaded from \S+: nothing to change/);
    await served.write(text);
    await back;
    expect((await health(served.url)).config?.error).toBeUndefined();
    expect(await toolNames(client)).toContain('a__add');
  });

  it('fails a server whose command does not exist and applies the rest', async (context) => {
    const { expect } = context;
    const served = await serve(context, config({ a: {} }));
    const client = await session(context, served.url);
    const named = waitForStderr(served.child, /ghost: command "no-such-mcp-server" is not on PATH/);
    await served.write(config({ a: {}, b: {}, ghost: { command: 'no-such-mcp-server' } }));
    await named;
    await toolsWhen(client, (names) => names.includes('b__add'));
    const connectors = (await health(served.url)).connectors;
    expect(connectors.find((c) => c.namespace === 'ghost')?.state).not.toBe('connected');
  });

  it('applies the last of a flood of edits', async (context) => {
    const { expect } = context;
    const served = await serve(context, config({ a: {} }));
    const client = await session(context, served.url);
    for (let i = 0; i < 20; i++) await served.write(config({ [`s${String(i % 3)}`]: {} }));
    await served.write(config({ last: {} }));
    const names = await toolsWhen(
      client,
      (n) => n.includes('last__add') && !n.some((name) => /^(a|s\d)__/.test(name)),
    );
    expect(names.every((name) => name.startsWith('last__'))).toBe(true);
  });

  it('applies filters, builtins and mode to the next request of an open session', async (context) => {
    const { expect } = context;
    const served = await serve(context, config({ a: {} }));
    const client = await session(context, served.url);
    expect(await toolNames(client)).toContain('a__add');
    // A misspelt entry of the edit is named, as at start: the server did not reconnect.
    const misspelt = waitForStderr(served.child, /"ehco" matches no tool of a/);
    await served.write(config({ a: { tools: { deny: ['add', 'ehco'] } } }, { builtins: true }));
    await misspelt;
    const names = await toolsWhen(client, (n) => n.includes('builtin__time_now'));
    expect(names).not.toContain('a__add');
    expect(names).toContain('a__echo');
    await served.write(config({ a: {} }, { mode: 'search' }));
    expect(await toolsWhen(client, (n) => n.includes('search_tools'))).not.toContain('a__add');
  });

  it('reloads over stdio too, on the open connection', async (context) => {
    const { expect } = context;
    const dir = join(root, 'stdio');
    await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
    const file = join(dir, 'toolplane.config.json');
    await writeFile(file, config({ a: {} }));
    const [command, ...args] = binCommand;
    const transport = new StdioClientTransport({
      command,
      args: [...args, 'serve', '--stdio', '--config', file],
      cwd: dir,
      env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'reload-test', version: '0.0.0' });
    await client.connect(transport);
    closeAfter(context, client);
    expect(await toolNames(client)).toContain('a__add');
    await writeFile(file, config({ a: {}, b: {} }));
    await toolsWhen(client, (names) => names.includes('b__add'));
  });

  it('reloads on SIGHUP', async (context) => {
    const { expect } = context;
    const served = await serve(context, config({ a: {} }, { mode: 'tools' }));
    const client = await session(context, served.url);
    const reloaded = waitForStderr(served.child, /config reloaded from \S+: nothing to change/);
    served.child.kill('SIGHUP');
    await reloaded;
    // Still serving, on the same session.
    expect(await toolNames(client)).toContain('a__add');
  });

  it('says again why the file is refused when SIGHUP asks for a reload', async (context) => {
    const { expect } = context;
    const served = await serve(context, config({ a: {} }));
    const refused = /config edit not applied[^\n]*not valid JSON/;
    const first = waitForStderr(served.child, refused);
    await served.write(config({ a: {}, b: {} }).slice(0, 40));
    await first;
    // Asked for by the operator: an answer, not silence, though the text is the same.
    const again = waitForStderr(served.child, refused);
    served.child.kill('SIGHUP');
    await again;
    expect(served.stderr().match(/config edit not applied/g)).toHaveLength(2);
  });
});
