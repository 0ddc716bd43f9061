// The dashboard of a real `toolplane serve --http` obeys the config's tool filters as the file
// is edited: a tool an edit denies leaves its lists and its try-it form, as it leaves the MCP
// endpoint's.
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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

const TOKEN = 'a-dashboard-filter-token-0123';
const fixture = fixtureCommand('stdio');
const dir = useTempDir('dashboard-filter');

/** A config with the fixture server under each name, denying the tools listed for it. */
function config(servers: Record<string, readonly string[]>): string {
  const mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, deny]) => [
      name,
      {
        command: fixture.command,
        args: fixture.args,
        ...(deny.length === 0 ? {} : { tools: { deny } }),
      },
    ]),
  );
  return JSON.stringify({ mcpServers, store: 'memory', builtins: false }, null, 2);
}

/** The dashboard's API as the logged-in page calls it. */
async function dashboard(url: URL) {
  const origin = url.origin;
  const login = await fetch(new URL('/ui/api/login', url), {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ token: TOKEN }),
  });
  expect(login.status).toBe(200);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return {
    toolIds: async (q: string): Promise<string[]> => {
      const answer = await fetch(new URL(`/ui/api/tools?q=${encodeURIComponent(q)}`, url), {
        headers: { cookie },
      });
      const body = (await answer.json()) as { tools: { id: string }[] };
      return body.tools.map((tool) => tool.id);
    },
    call: async (tool: string, args: Record<string, unknown>) => {
      const answer = await fetch(new URL('/ui/api/call', url), {
        method: 'POST',
        headers: { origin, cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ tool, arguments: args }),
      });
      const body = (await answer.json()) as { content?: unknown; error?: { code: string } };
      return { status: answer.status, body };
    },
  };
}

describe('the dashboard of toolplane serve, as the config file changes its filters', () => {
  let child: ChildProcess | undefined;
  afterEach(async () => {
    // SIGTERM: the CLI ends the servers it started.
    if (child !== undefined) await stop(child, 'SIGTERM');
    child = undefined;
  });

  it('neither lists nor calls a tool an edit denies, of a server it had or one it adds', async () => {
    const file = join(dir(), 'toolplane.config.json');
    await writeFile(file, config({ alpha: [] }));
    child = startCli([...SERVE_HTTP, '--config', file], {
      command: binCommand,
      cwd: dir(),
      env: { TOOLPLANE_TOKEN: TOKEN },
    });
    const url = await listeningUrl(child);
    const ui = await dashboard(url);
    expect(await ui.toolIds('add')).toContain('alpha:add');
    expect((await ui.call('alpha:add', { a: 1, b: 2 })).status).toBe(200);

    const reloaded = waitForStderr(child, /config reloaded from \S+: \+beta/);
    await writeFile(file, config({ alpha: ['add'], beta: ['add'] }));
    await reloaded;
    await waitForStderr(child, /beta connected/);

    const listed = await ui.toolIds('add');
    expect(listed).not.toContain('alpha:add');
    expect(listed).not.toContain('beta:add');
    for (const tool of ['alpha:add', 'beta:add']) {
      const refused = await ui.call(tool, { a: 1, b: 2 });
      expect(refused.status).toBe(404);
      expect(refused.body.error?.code).toBe('tool_not_found');
    }
    // The rest of the new server is there.
    expect((await ui.call('beta:echo', { text: 'hi' })).body.content).toEqual([
      { type: 'text', text: 'hi' },
    ]);
  }, 90_000);
});
