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

// `strict: true` makes a mistake found only once the servers connect an error at start. An
// approval pattern that matches no tool is one (it guards nothing: the calls it was written for
// run without asking), but under strict it was only warned of, and the gateway served.

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
