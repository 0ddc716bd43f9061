// `kill -HUP` reloads a running `serve`'s config; sent while it still starts its servers or
// while it drains on its way out, it must not end the gateway (Node's default for SIGHUP), which
// would leave the servers it started running and cut the calls in flight. Another command ends
// on it as on Ctrl-C, its servers with it.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureCommand, isAlive } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import {
  exited,
  listeningUrl,
  startCli,
  stop,
  useServedConfigs,
  waitForStderr,
} from './testing/cli-process.js';

const served = useServedConfigs('serve-hangup');
const dir = served.dir;
const fixture = fixtureCommand('stdio');
// Commands other than serve, and servers a failing run may leave behind (by pid).
const children: ChildProcess[] = [];
const servers: number[] = [];

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stop(child, 'SIGTERM')));
  for (const pid of servers.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

async function serve(name: string, config: object): Promise<ChildProcess> {
  return (await served.serve(name, { store: 'memory', builtins: false, ...config })).child;
}

describe('SIGHUP to toolplane serve', { timeout: 60_000 }, () => {
  it('while its servers still start is held, and reloads the config once it is watched', async () => {
    const child = await serve('starting', {
      mcpServers: {
        // Never answers `initialize`: the start-up wait runs its whole course. It ends with its
        // stdin, so a gateway that died leaves no server behind.
        mute: {
          command: process.execPath,
          args: ['-e', 'process.stdin.on("end", () => process.exit()).resume()'],
        },
      },
      waitMs: 1_500,
    });
    await waitForStderr(child, /mute connecting/);
    child.kill('SIGHUP');
    await Promise.all([
      listeningUrl(child),
      waitForStderr(child, /config reloaded from starting\.json/),
    ]);
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();
  });

  it('while it still loads, its servers started early, is held too', async () => {
    const marker = join(dir(), 'early.started');
    const child = await serve('loading', {
      mcpServers: {
        // Started before the CLI's modules load; says so, then never answers `initialize` (and
        // ends with its stdin).
        early: {
          command: process.execPath,
          args: [
            '-e',
            'require("node:fs").writeFileSync(process.argv[1], ""); process.stdin.on("end", () => process.exit()).resume()',
            marker,
          ],
        },
      },
      waitMs: 1_500,
    });
    while (!existsSync(marker)) {
      if (child.exitCode !== null) throw new Error('serve ended before its server started');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill('SIGHUP');
    await Promise.all([
      listeningUrl(child),
      waitForStderr(child, /config reloaded from loading\.json/),
    ]);
    expect(child.signalCode).toBeNull();
  });

  it('ends another command that only names serve (tools search serve) as Ctrl-C does', async () => {
    const marker = join(dir(), 'one-shot.pid');
    const file = join(dir(), 'one-shot.json');
    await writeFile(
      file,
      JSON.stringify({
        store: 'memory',
        builtins: false,
        mcpServers: {
          // Writes its pid, never answers `initialize`, and does not end with its stdin: only
          // the CLI ending it stops it.
          deaf: {
            command: process.execPath,
            args: [
              '-e',
              'require("node:fs").writeFileSync(process.argv[1], String(process.pid)); process.stdin.resume(); setInterval(() => {}, 60_000)',
              marker,
            ],
          },
        },
        waitMs: 30_000,
      }),
    );
    const child = startCli(['tools', 'search', 'serve', '--config', file], { cwd: dir() });
    children.push(child);
    while (!existsSync(marker) || (await readFile(marker, 'utf8')) === '') {
      if (child.exitCode !== null) throw new Error('the command ended before its server started');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const server = Number(await readFile(marker, 'utf8'));
    servers.push(server);
    child.kill('SIGHUP');
    // Stopped, not killed by the signal: its server ended with it, not left running alone.
    expect(await exited(child)).not.toBe(0);
    expect(child.signalCode).toBeNull();
    expect(isAlive(server)).toBe(false);
  });

  it('while it drains lets the call in flight finish, and the gateway stop as asked', async () => {
    const child = await serve('draining', {
      mcpServers: { fx: { command: fixture.command, args: fixture.args } },
    });
    const url = await listeningUrl(child);
    const client = new Client({ name: 'hangup-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    let begun: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (begun = resolve));
    const call = client.callTool(
      { name: 'fx__slow', arguments: { ms: 1_500 } },
      // Bounded: a gateway gone mid-call would leave it waiting for the client's default minute.
      {
        onprogress: () => {
          begun();
        },
        timeout: 20_000,
      },
    );
    await started;
    const draining = waitForStderr(child, /shutting down/);
    child.kill('SIGTERM');
    await draining;
    child.kill('SIGHUP');
    expect((await call).content).toEqual([{ type: 'text', text: 'done' }]);
    expect(await exited(child)).toBe(0);
    expect(child.signalCode).toBeNull();
    await client.close().catch(() => undefined);
  });
});
