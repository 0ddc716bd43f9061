import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import {
  exited,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
} from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

// `strict: true` makes a mistake found only once the servers connect an error at start. An
// approval pattern that matches no tool is one (it guards nothing: the calls it was written for
// run without asking), but under strict it was only warned of, and the gateway served; the
// one-shot commands (`tools list`, `tools call`) did not check the patterns at all.

const fixture = fixtureCommand('stdio');
const dir = useTempDir('strict-approval');
const children: ChildProcess[] = [];

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stop(child, 'SIGTERM')));
});

describe(
  'toolplane serve under strict, an approval pattern that matches no tool',
  { timeout: 90_000 },
  () => {
    it('is an error, exit 2, before serving', async () => {
      const file = join(dir(), 'toolplane.config.json');
      await writeFile(
        file,
        JSON.stringify({
          mcpServers: { gh: { command: fixture.command, args: fixture.args } },
          store: 'memory',
          builtins: false,
          approval: { destructive: false, tools: ['github:delete-item', 'gh:delete-*'] },
          strict: true,
        }),
      );
      const child = startCli([...SERVE_HTTP, '--config', file], {
        cwd: dir(),
        env: { TOOLPLANE_TOKEN: 'a-strict-approval-token-0123' },
      });
      children.push(child);
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const outcome = await Promise.race([
        exited(child).then((code) => ({ code })),
        listeningUrl(child).then(() => 'listening'),
      ]);
      expect(outcome).toEqual({ code: 2 });
      expect(stderr).toContain('approval tools pattern "github:delete-item" matches no tool');
      expect(stderr).not.toContain('"gh:delete-*"');
    });
  },
);

describe('toolplane tools list and call, an approval pattern that matches no tool', () => {
  const UNMATCHED = 'approval tools pattern "github:delete-item" matches no tool';

  /** A config with servers `gh` and `other` (fixtures); `gh:add` and `other:add` are guarded. */
  async function configWith(name: string, extra: Record<string, unknown>): Promise<string> {
    const server = { command: fixture.command, args: fixture.args };
    await writeFile(
      join(dir(), name),
      JSON.stringify({
        mcpServers: { gh: server, other: server },
        store: 'memory',
        builtins: false,
        approval: { destructive: false, tools: ['gh:add', 'other:add'] },
        ...extra,
      }),
    );
    return name;
  }

  it('is an error, exit 2, under strict; a warning without', async () => {
    const approval = { destructive: false, tools: ['github:delete-item', 'gh:add'] };
    const strict = await configWith('strict-list.json', { approval, strict: true });
    const loose = await configWith('loose-list.json', { approval });
    const [refused, warned] = await Promise.all([
      runInProcess(['--config', strict, 'tools', 'list'], { cwd: dir() }),
      runInProcess(['--config', loose, 'tools', 'list', '--json'], { cwd: dir() }),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(UNMATCHED);
    expect(refused.stderr).not.toContain('"gh:add"');
    expect(refused.stdout).toBe('');
    expect(warned.code).toBe(0);
    expect(warned.stderr.split(UNMATCHED)).toHaveLength(2);
    const ids = (JSON.parse(warned.stdout) as { tools: { id: string }[] }).tools.map((t) => t.id);
    expect(ids).toContain('gh:echo');
  });

  it('checks a call against the one server it opens, not those it leaves closed', async () => {
    // `tools call gh:echo` starts gh alone: other's tools are unknown, so `other:add` is not
    // taken for a pattern that matches nothing, and a pattern naming no server still is.
    const closed = await configWith('strict-call.json', { strict: true });
    const typo = await configWith('strict-typo.json', {
      approval: { destructive: false, tools: ['github:delete-item', 'other:add'] },
      strict: true,
    });
    const [called, refused] = await Promise.all([
      runInProcess(['--config', closed, 'tools', 'call', 'gh:echo', 'text=hi'], { cwd: dir() }),
      runInProcess(['--config', typo, 'tools', 'call', 'gh:echo', 'text=hi'], { cwd: dir() }),
    ]);
    expect(called.stderr).not.toContain('approval');
    expect(called.code).toBe(0);
    expect(called.stdout).toContain('hi');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(UNMATCHED);
    expect(refused.stderr).toContain('servers: gh, other');
    expect(refused.stderr).not.toContain('"other:add"');
  });
});
