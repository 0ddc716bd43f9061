// What an operator must act on (a config edit refused, a pinned tool changed) is a warning in
// `serve`'s log: written under `log.level: warn`, and at level `warn` in a JSON line, where a
// log collector's alert looks for it.
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { listeningUrl, useServedConfigs, waitForStderr } from './testing/cli-process.js';

const served = useServedConfigs('serve-log-levels');
const fixture = fixtureCommand('stdio');
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
});

/** Serves a config with the fixture as `fx` and `log` as given; returns it and its file. */
function serve(name: string, log: object): Promise<{ child: ChildProcess; file: string }> {
  return served.serve(name, {
    mcpServers: { fx: { command: fixture.command, args: fixture.args } },
    store: 'memory',
    builtins: false,
    pinning: 'warn',
    log,
  });
}

describe("serve's warnings", { timeout: 60_000 }, () => {
  it('are written under log.level warn: a refused edit and a changed pinned tool', async () => {
    const { child, file } = await serve('text', { level: 'warn' });
    const url = await listeningUrl(child);
    const refused = waitForStderr(child, /warning config edit not applied/);
    await writeFile(file, '{ "mcpServers": {');
    await refused;

    const client = new Client({ name: 'log-levels', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    clients.push(client);
    const changed = waitForStderr(child, /warning tool "fx:echo" changed since it was pinned/);
    await client.callTool({ name: 'fx__change-echo', arguments: { description: 'changed' } });
    await changed;
  });

  it('are at level warn in a JSON line', async () => {
    const { child, file } = await serve('json', { format: 'json' });
    await waitForStderr(child, /"msg":"listening"/);
    const refused = waitForStderr(child, /^.*config edit not applied.*$/m);
    await writeFile(file, '{ "mcpServers": {');
    const [line = ''] = await refused;
    const entry = JSON.parse(line) as { level: string; msg: string };
    expect(entry.level).toBe('warn');
    expect(entry.msg).toMatch(/^config edit not applied/);
  });
});
