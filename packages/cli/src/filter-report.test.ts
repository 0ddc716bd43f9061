// A `tools` filter entry that matches no tool of its server: a warning (once) with a "did you
// mean", in `connectors status` and `/healthz`; an error (exit 2) under --strict or strict: true.
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  binCommand,
  exited,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
  waitForStderr,
} from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

const tempDir = useTempDir('filter-report');
const children: ChildProcess[] = [];
const fixture = fixtureCommand('stdio');
const TOKEN = 'a-token-of-twenty-four-c';
const WARNING =
  'tools.deny of fix: "ech" matches no tool of fix, so it denies nothing; did you mean "echo"?';

beforeAll(async () => {
  const dir = tempDir();
  const server = { command: fixture.command, args: fixture.args, tools: { deny: ['ech', 'add'] } };
  await writeFile(
    join(dir, 'typo.json'),
    JSON.stringify({ mcpServers: { fix: server }, store: 'memory' }),
  );
  await writeFile(
    join(dir, 'strict.json'),
    JSON.stringify({ mcpServers: { fix: server }, store: 'memory', strict: true }),
  );
  await writeFile(
    join(dir, 'glob.json'),
    JSON.stringify({
      mcpServers: { fix: { ...server, tools: { allow: ['ec*'] } } },
      store: 'memory',
    }),
  );
});

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stop(child, 'SIGTERM')));
});

const count = (text: string, part: string): number => text.split(part).length - 1;

describe('tools filter entries that match no tool', { timeout: 60_000 }, () => {
  it('warns once with a did-you-mean, and still serves what the filter lets through', async () => {
    const ran = await runInProcess(['--config', 'typo.json', 'tools', 'list', '--json'], {
      cwd: tempDir(),
    });
    expect(ran.code).toBe(0);
    expect(count(ran.stderr, WARNING)).toBe(1);
    const ids = (JSON.parse(ran.stdout) as { tools: { id: string }[] }).tools.map((t) => t.id);
    expect(ids).toContain('fix:echo');
    expect(ids).not.toContain('fix:add');
  });

  it('names patterns as what they are: entries are exact names', async () => {
    const ran = await runInProcess(['--config', 'glob.json', 'tools', 'list'], { cwd: tempDir() });
    expect(ran.stderr).toContain(
      'tools.allow of fix: "ec*" matches no tool of fix, so it allows nothing; entries are exact names, not patterns',
    );
  });

  it('is an error, exit 2, under --strict or strict: true', async () => {
    const [flag, key] = await Promise.all([
      runInProcess(['--strict', '--config', 'typo.json', 'tools', 'list'], { cwd: tempDir() }),
      runInProcess(['--config', 'strict.json', 'tools', 'list'], { cwd: tempDir() }),
    ]);
    for (const ran of [flag, key]) {
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(WARNING);
      expect(ran.stdout).toBe('');
    }
  });

  it('shows in connectors status', async () => {
    const ran = await runInProcess(['--config', 'typo.json', 'connectors', 'status', '--json'], {
      cwd: tempDir(),
    });
    expect(ran.code).toBe(0);
    const [row] = (JSON.parse(ran.stdout) as { connectors: Record<string, unknown>[] }).connectors;
    expect(row?.unmatchedFilter).toEqual([
      { list: 'deny', entry: 'ech', suggestion: 'echo', message: WARNING },
    ]);
    const table = await runInProcess(['--config', 'typo.json', 'connectors', 'status'], {
      cwd: tempDir(),
    });
    expect(table.stdout).toContain('did you mean "echo"?');
  });

  it('serve warns once on stderr and /healthz tells the token holder; --strict stops it', async () => {
    const child = startCli([...SERVE_HTTP, '--config', 'typo.json'], {
      command: binCommand,
      cwd: tempDir(),
      stdin: 'pipe',
      env: { TOOLPLANE_TOKEN: TOKEN },
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const warned = waitForStderr(child, /did you mean "echo"\?/);
    const printedAll = waitForStderr(child, /Ctrl-C stops the gateway/);
    const url = await listeningUrl(child);
    await Promise.all([warned, printedAll]);
    const health = await fetch(new URL('/healthz', url), {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const body = (await health.json()) as { connectors: { unmatchedFilter?: unknown }[] };
    expect(body.connectors[0]?.unmatchedFilter).toEqual([
      { list: 'deny', entry: 'ech', suggestion: 'echo', message: WARNING },
    ]);
    const anonymous = (await (await fetch(new URL('/healthz', url))).json()) as object;
    expect(Object.keys(anonymous)).toEqual(['status']);
    expect(count(stderr, WARNING)).toBe(1);

    const strict = startCli(['--strict', ...SERVE_HTTP, '--config', 'typo.json'], {
      command: binCommand,
      cwd: tempDir(),
      stdin: 'pipe',
    });
    children.push(strict);
    let strictErr = '';
    strict.stderr?.on('data', (chunk: Buffer) => (strictErr += chunk.toString()));
    expect(await exited(strict)).toBe(2);
    expect(strictErr).toContain(WARNING);
    expect(strictErr).not.toContain('listening on');
  });
});
