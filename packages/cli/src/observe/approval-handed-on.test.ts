import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { callModern } from '@toolplane/fixtures';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVE_HTTP, startCli, stop, useTempDir, waitForStderr } from '../testing/cli-process.js';

// An approval asked of a 2026-07-28 client by a `serve --http` with a shared request-state key
// (a fleet's instance, `replayRounds: 'always'`): the asking request ends once its round is sent,
// and the client's retry runs the call again. What the operator reads of that first request: the
// live log, the charts, /metrics and the audit lines say `input_required`, never a failure.

const KEY = 'approval-handed-on-key-0123456789abcdef';
const dir = useTempDir('approval-handed-on');

interface CallEntry {
  readonly id: number;
  readonly tool: string;
  readonly outcome?: string;
  readonly waiting?: string;
}

let child: ChildProcess;
let url: URL;
let ui: URL;
let stderr = '';

async function recentCalls(): Promise<CallEntry[]> {
  const response = await fetch(new URL('api/calls', ui));
  return ((await response.json()) as { calls: CallEntry[] }).calls;
}

function logLines(): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  const fixture = fixtureCommand('stdio');
  await writeFile(
    join(dir(), 'toolplane.config.json'),
    JSON.stringify({
      mcpServers: { fx: { command: fixture.command, args: fixture.args } },
      store: 'memory',
      http: { instanceId: 'asker' },
      log: { level: 'info' },
      approval: { destructive: false, tools: ['fx:delete-item'] },
    }),
  );
  child = startCli([...SERVE_HTTP, '--log-format', 'json'], {
    cwd: dir(),
    env: { TOOLPLANE_REQUEST_STATE_KEY: KEY },
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [, found = ''] = await waitForStderr(child, /"url":"([^"]+)"/);
  url = new URL(found);
  ui = new URL('/ui/', url);
});

afterAll(async () => {
  await stop(child);
});

describe('serve with a shared request-state key, asking for approval', () => {
  it('logs the asking request as input_required, not an error, and the retry with its outcome', async () => {
    const asked = await callModern(url, 'fx__delete-item', { id: 'handed' });
    expect(asked.result?.resultType).toBe('input_required');
    const [key = ''] = Object.keys(asked.result?.inputRequests ?? {});
    // The asking request's call ends once the round is sent: as handed on.
    await expect
      .poll(async () => (await recentCalls()).find((c) => c.tool === 'fx:delete-item')?.outcome)
      .toBe('input_required');
    const stats = (await (await fetch(new URL('api/stats', ui))).json()) as { errors: number };
    expect(stats.errors).toBe(0);

    const done = await callModern(
      url,
      'fx__delete-item',
      { id: 'handed' },
      {
        params: {
          requestState: asked.result?.requestState,
          inputResponses: { [key]: { action: 'accept', content: { approve: true } } },
        },
      },
    );
    expect(done.result?.content?.[0]?.text).toContain('deleted handed');
    await expect
      .poll(async () => (await recentCalls()).map((c) => [c.tool, c.outcome]))
      .toEqual([
        ['fx:delete-item', 'input_required'],
        ['fx:delete-item', 'ok'],
      ]);
    expect(
      ((await (await fetch(new URL('api/stats', ui))).json()) as { errors: number }).errors,
    ).toBe(0);

    const metrics = await (await fetch(new URL('/metrics', url))).text();
    expect(metrics).toContain(
      'toolplane_tool_calls_total{namespace="fx",tool="fx:delete-item",outcome="input_required"} 1',
    );
    expect(metrics).toContain(
      'toolplane_tool_calls_total{namespace="fx",tool="fx:delete-item",outcome="ok"} 1',
    );
    expect(metrics).not.toMatch(/tool="fx:delete-item",outcome="cancelled"/);
    // Audit: asked by the request that was handed on, asked and granted by the retry; nothing
    // refused.
    await expect
      .poll(() =>
        logLines()
          .filter((line) => typeof line.kind === 'string' && line.kind.startsWith('approval.'))
          .map((line) => line.kind),
      )
      .toEqual(['approval.asked', 'approval.asked', 'approval.granted']);
    expect(
      logLines()
        .filter((line) => line.kind === 'tool.call' && line.tool === 'fx:delete-item')
        .map((line) => line.outcome),
    ).toEqual(['input_required', 'ok']);
  });
});
