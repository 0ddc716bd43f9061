// `toolplane` on a SQLite store this user may read but not write: a team's store that another
// user owns, in a directory this user may not write (mode 0555, file 0444). Tests run as root in
// CI, and root may write anything, so the commands run with another user's ids: in process
// through asOtherUser, and `serve` as a child started as that user. That user must be able to read
// the checkout and Node.js: in a checkout under root's home (0700) the tests say so and skip.
import type { ChildProcess } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  asOtherUser,
  fixtureCommand,
  OTHER_USER,
  runsAsRoot,
  unreadableByOtherUser,
} from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  binCommand,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
  withoutStartProgress,
} from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

const dir = useTempDir('read-only-store');
const cli = (args: readonly string[]) =>
  runInProcess([...args, '--config', join(dir(), 'toolplane.config.json')], { cwd: dir() });
const asReader = (args: readonly string[]) => asOtherUser(() => cli(args));

const unreadable = await unreadableByOtherUser([process.execPath, fileURLToPath(import.meta.url)]);
if (unreadable.length > 0) {
  console.warn(
    `skipped: user ${String(OTHER_USER.uid)} may not read ${unreadable.join(' and ')}; ` +
      'clone where other users may read (not under a home of mode 0700) to run these tests',
  );
}
const otherUserReads = unreadable.length === 0;

const READ_ONLY =
  /the SQLite store at ".*store\.db" is read-only \(this user may not write the file/;
const linesOf = (text: string, pattern: RegExp): string[] =>
  text.split('\n').filter((line) => pattern.test(line));

beforeAll(async () => {
  if (!otherUserReads) return;
  // mkdtemp made it 0700: the other user must reach the config and the store.
  await chmod(dir(), 0o755);
  const fixture = fixtureCommand('stdio');
  await writeFile(
    join(dir(), 'toolplane.config.json'),
    JSON.stringify({
      mcpServers: { fx: { command: fixture.command, args: fixture.args } },
      store: { sqlite: 'team/store.db' },
      mode: 'search',
    }),
  );
  await writeFile(join(dir(), 'greet.md'), '---\ndescription: greets\n---\nHello {{who}}\n');
  await writeFile(join(dir(), 'notes.txt'), 'shared notes\n');
  // Its owner added a prompt and a resource; no one has pinned fx's tools yet.
  expect((await cli(['prompts', 'add', 'greet.md'])).code).toBe(0);
  expect((await cli(['resources', 'add', 'notes.txt'])).code).toBe(0);
  await chmod(join(dir(), 'team', 'store.db'), 0o444);
  await chmod(join(dir(), 'team'), 0o555);
});
afterAll(async () => {
  if (otherUserReads) await chmod(join(dir(), 'team'), 0o755);
});

describe.runIf(otherUserReads)('toolplane on a store this user may not write', () => {
  it('lists and reads prompts and resources', async () => {
    const prompts = await asReader(['prompts', 'list']);
    expect(prompts).toMatchObject({ code: 0, stderr: '' });
    expect(prompts.stdout).toContain('user:greet');
    const resources = await asReader(['resources', 'list']);
    expect(resources).toMatchObject({ code: 0, stderr: '' });
    expect(resources.stdout).toContain('toolplane://resources/notes.txt');
    // Reading one starts every server, and pins the tools they offer: refused, and said once.
    const read = await asReader(['resources', 'read', 'toolplane://resources/notes.txt']);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('shared notes');
    expect(withoutStartProgress(read.stderr).trim().split('\n')).toEqual([
      expect.stringMatching(READ_ONLY),
    ]);
  });

  it('refuses each write with store_error (exit 5), saying the store is read-only and why', async () => {
    for (const args of [
      ['prompts', 'add', 'greet.md'],
      ['prompts', 'rm', 'greet'],
      ['resources', 'add', 'notes.txt'],
      ['search', 'forget'],
    ]) {
      const ran = await asReader(args);
      expect({ args, code: ran.code }).toEqual({ args, code: 5 });
      expect(linesOf(ran.stderr, READ_ONLY)).toHaveLength(1);
    }
    expect((await asReader(['prompts', 'list'])).stdout).toContain('user:greet');
  });

  it('lists and searches the tools, warning once that their pins are not saved', async () => {
    for (const args of [
      ['tools', 'list'],
      ['tools', 'search', 'echo back the text'],
    ]) {
      const ran = await asReader(args);
      expect({ args, code: ran.code }).toEqual({ args, code: 0 });
      expect(ran.stdout).toContain('fx:echo');
      expect(withoutStartProgress(ran.stderr).trim().split('\n')).toEqual([
        expect.stringMatching(READ_ONLY),
      ]);
      expect(withoutStartProgress(ran.stderr)).toMatch(/^warning /);
    }
  });
});

describe.runIf(otherUserReads)('toolplane serve on a store this user may not write', () => {
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child !== undefined) await stop(child);
  });

  it('serves what the store holds and says once, as it starts, that nothing is saved', async () => {
    child = startCli([...SERVE_HTTP, '--config', join(dir(), 'toolplane.config.json')], {
      command: binCommand,
      cwd: dir(),
      ...(runsAsRoot() ? { user: OTHER_USER } : {}),
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'read-only-store-test', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(await listeningUrl(child)));
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain(
      'user__greet',
    );
    // Each new tool is pinned, and each search followed by a call is learned from: all refused.
    for (let i = 0; i < 3; i++) {
      await client.callTool({ name: 'search_tools', arguments: { query: `echo text ${i}` } });
      const called = await client.callTool({
        name: 'call_tool',
        arguments: { id: 'fx:echo', arguments: { text: `hi ${String(i)}` } },
      });
      expect(called.isError).not.toBe(true);
    }
    await client.close();
    // Stopping flushes what search learned: every write it tried has been refused by then.
    await stop(child, 'SIGTERM');
    expect(linesOf(stderr, READ_ONLY)).toEqual([
      expect.stringMatching(
        /serving what it holds; pins, learning and refreshed OAuth tokens not saved/,
      ),
    ]);
    expect(stderr).not.toMatch(/cannot write|search evidence/);
  }, 60_000);
});
