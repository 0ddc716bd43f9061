import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loginCookie } from '@toolplane/dashboard/testing';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  binCommand,
  exited,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
  waitForStderr,
} from '../testing/cli-process.js';
import { startReceiver, type Receiver } from '../testing/otlp-receiver.js';

const TOKEN = 'observe-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };
const dir = useTempDir('observe');

let receiver: Receiver;
let child: ChildProcess;
let stderr = '';
let url: URL;

beforeAll(async () => {
  receiver = await startReceiver();
  const fixture = fixtureCommand('stdio');
  await writeFile(
    join(dir(), 'toolplane.config.json'),
    JSON.stringify({
      mcpServers: { fx: { command: fixture.command, args: fixture.args } },
      store: 'memory',
      http: { token: TOKEN, instanceId: 'observe-1' },
      log: { level: 'info', arguments: true },
      telemetry: { otlp: { url: receiver.url } },
    }),
  );
  child = startCli([...SERVE_HTTP, '--log-format', 'json'], { command: binCommand, cwd: dir() });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [, found = ''] = await waitForStderr(child, /"url":"([^"]+)"/);
  url = new URL(found);
});

afterAll(async () => {
  await stop(child);
  await new Promise((resolve) => receiver.server.close(resolve));
});

describe('serve --log-format json, with metrics and OTLP traces', () => {
  it('serves /metrics behind the token, counting the calls made', async () => {
    const client = new Client({ name: 'observe-test', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: auth } }),
    );
    try {
      await client.callTool({ name: 'fx__add', arguments: { a: 1, b: 2 } });
      // A secret in the arguments: audit lines record them here, masked.
      await client.callTool({ name: 'fx__echo', arguments: { text: `say ${TOKEN}` } });
      await client.callTool({ name: 'fx__made-up', arguments: {} }).catch(() => undefined);
    } finally {
      await client.close();
    }
    const metrics = new URL('/metrics', url);
    expect((await fetch(metrics)).status).toBe(401);
    const text = await (await fetch(metrics, { headers: auth })).text();
    expect(text).toContain(
      'toolplane_tool_calls_total{namespace="fx",tool="fx:add",outcome="ok"} 1',
    );
    expect(text).toContain('tool="unknown",outcome="not_found"} 1');
    expect(text).toContain('toolplane_connector_state{namespace="fx",state="connected"} 1');
  });

  it('counts and audits the calls made from the dashboard as calls of session "dashboard"', async () => {
    const ui = new URL('/ui/', url);
    const cookie = await loginCookie(ui, TOKEN);
    const called = await fetch(new URL('api/call', ui), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ui.origin, cookie },
      body: JSON.stringify({ tool: 'fx:touch', arguments: {} }),
    });
    expect(called.status).toBe(200);
    const text = await (await fetch(new URL('/metrics', url), { headers: auth })).text();
    expect(text).toContain(
      'toolplane_tool_calls_total{namespace="fx",tool="fx:touch",outcome="ok"} 1',
    );
    const audits = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.kind === 'tool.call' && entry.tool === 'fx:touch');
    expect(audits).toMatchObject([{ who: 'session:dashboard', outcome: 'ok' }]);
  });

  it('exports the tool calls as spans to the OTLP receiver', async () => {
    await receiver.spanNamed('tool fx:add');
    const text = JSON.stringify(receiver.bodies);
    expect(text).toContain('"service.name"');
    expect(text).toContain('toolplane.namespace');
  });

  it('writes one JSON object per line, with ids, audit lines and secrets masked', async () => {
    child.kill('SIGTERM');
    await exited(child);
    const lines = stderr.split('\n').filter((line) => line !== '');
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.length).toBeGreaterThan(3);
    for (const entry of entries) {
      expect(entry.instance).toBe('observe-1');
      expect(typeof entry.level).toBe('string');
    }
    expect(entries).toContainEqual(
      expect.objectContaining({ connector: 'fx', state: 'connected' }),
    );
    // The MCP clients' calls (the dashboard's has a test of its own).
    const audits = entries.filter(
      (entry) =>
        entry.audit === true && entry.kind === 'tool.call' && entry.session !== 'dashboard',
    );
    expect(audits.map((a) => [a.tool, a.outcome])).toEqual([
      ['fx:add', 'ok'],
      ['fx:echo', 'ok'],
      ['unknown', 'not_found'],
    ]);
    for (const audit of audits) {
      expect(audit.who).toMatch(/^session:/);
      expect(audit.session).toEqual(expect.any(String));
      expect(audit.request).toEqual(expect.any(Number));
      expect(audit.durationMs).toEqual(expect.any(Number));
    }
    expect(audits[1]?.arguments).toEqual({ text: 'say ***' });
    // The audit log's own records: each tool of the server pinned on first sight (pinning: warn).
    const pinned = entries.filter((entry) => entry.audit === true && entry.kind === 'pin.first');
    expect(pinned.map((entry) => entry.tool)).toContain('fx:add');
    for (const entry of pinned) {
      expect(entry).toMatchObject({
        who: 'gateway',
        fingerprint: expect.stringMatching(/^sha256:/),
      });
    }
    expect(stderr).not.toContain(TOKEN);
  });
});
