import type { ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import {
  binCommand,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
  waitForStderr,
} from './testing/cli-process.js';

// An approval pattern names a server by its namespace. An edit that renames the server (the same
// command under another key) left the running policy naming the old one: the tools it guarded
// ran without asking, and nothing said so. A pattern that matches no tool at all is named too.

const fixture = fixtureCommand('stdio');
const TOKEN = 'an-approval-reload-token-0123';
const auth = { authorization: `Bearer ${TOKEN}` };
const dir = useTempDir('approval-reload');
const children: ChildProcess[] = [];
const clients: Client[] = [];
let count = 0;

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  // SIGTERM: the CLI ends the servers it started.
  await Promise.all(children.splice(0).map((child) => stop(child, 'SIGTERM')));
});

/** The fixture server under each namespace, with `approval` guarding what `tools` names. */
function config(namespaces: readonly string[], tools: readonly string[]): string {
  const server = { command: fixture.command, args: fixture.args };
  return JSON.stringify({
    mcpServers: Object.fromEntries(namespaces.map((namespace) => [namespace, server])),
    store: 'memory',
    builtins: false,
    approval: { destructive: false, tools },
  });
}

async function serve(text: string) {
  const home = join(dir(), `t${String(++count)}`);
  await mkdir(home);
  const file = join(home, 'toolplane.config.json');
  await writeFile(file, text);
  const child = startCli([...SERVE_HTTP, '--config', file], {
    command: binCommand,
    cwd: home,
    env: { TOOLPLANE_TOKEN: TOKEN },
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await listeningUrl(child);
  return { child, file, url, stderr: () => stderr };
}

/** A client without elicitation: a call approval guards is refused, one it does not runs. */
async function connect(url: URL): Promise<Client> {
  const client = new Client({ name: 'approval-reload', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: auth } }));
  clients.push(client);
  return client;
}

describe('toolplane serve, approval patterns and config edits', { timeout: 90_000 }, () => {
  it('refuses an edit that renames a server the running approval policy guards', async () => {
    const served = await serve(config(['github'], ['github:delete-item']));
    const client = await connect(served.url);
    const refused = waitForStderr(served.child, /config edit not applied[^\n]*/);
    await writeFile(served.file, config(['gh'], ['gh:delete-item']));
    const [line = ''] = await refused;
    expect(line).toContain('"github:delete-item"');
    expect(line).toContain('"gh"');
    expect(line).toContain('restart');
    // The running config stays: the tool is still guarded, under the name it had.
    const call = await client.callTool({ name: 'github__delete-item', arguments: { id: 'x' } });
    expect(call.isError).toBe(true);
    expect(JSON.stringify(call)).toContain('approval_denied');
    const health = (await (
      await fetch(new URL('/healthz', served.url), { headers: auth })
    ).json()) as {
      config?: { error?: string };
    };
    expect(health.config?.error).toContain('github:delete-item');
    expect(served.stderr()).not.toContain('config reloaded');
  });

  it('warns at start of a pattern that names no server of the config', async () => {
    const served = await serve(config(['gh'], ['github:delete-item', 'gh:delete-*']));
    // Said once the servers have connected: before the address is printed.
    const line = /[^\n]*"github:delete-item"[^\n]*/.exec(served.stderr())?.[0] ?? '';
    expect(line).toMatch(/warning/);
    expect(line).toContain('matches no tool');
    expect(served.stderr()).not.toContain('"gh:delete-*"');
  });

  it('warns when an edit removes the server a pattern guarded', async () => {
    const served = await serve(config(['github', 'other'], ['github:delete-item']));
    const warned = waitForStderr(served.child, /[^\n]*"github:delete-item" matches no tool[^\n]*/);
    await writeFile(served.file, config(['other'], ['github:delete-item']));
    const [line = ''] = await warned;
    expect(line).toMatch(/warning/);
    expect(served.stderr()).toContain('config reloaded');
  });
});
