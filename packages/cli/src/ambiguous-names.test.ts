import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixtureCommand } from '@toolplane/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { json, useTempDir } from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

// A bare tool name two servers have: which one runs must not depend on the config's order.
const dir = useTempDir('ambiguous-names');

beforeAll(async () => {
  const fixture = fixtureCommand('stdio');
  const server = { command: fixture.command, args: fixture.args };
  await writeFile(
    join(dir(), 'toolplane.config.json'),
    JSON.stringify({ mcpServers: { a: server, b: server }, store: 'memory', builtins: false }),
  );
});

describe('a bare tool name of two servers', () => {
  it('is refused, naming both; ns:name picks one', async () => {
    const bare = await runInProcess(['tools', 'call', 'add', 'a=1', 'b=2', '--json'], {
      cwd: dir(),
    });
    expect(bare.code).toBe(2);
    const refused = json(bare) as { error: { code: string; message: string } };
    expect(refused.error.code).toBe('invalid_argument');
    expect(refused.error.message).toContain('a:add, b:add');
    const named = await runInProcess(['tools', 'call', 'b:add', 'a=1', 'b=2', '--json'], {
      cwd: dir(),
    });
    expect(named.code).toBe(0);
  });
});

describe('tools list --namespace', () => {
  it('refuses a namespace no server has, naming the nearest', async () => {
    const ran = await runInProcess(['tools', 'list', '-n', 'c', '--json'], { cwd: dir() });
    expect(ran.code).toBe(3);
    const refused = json(ran) as { error: { code: string; message: string } };
    expect(refused.error.code).toBe('not_found');
    expect(refused.error.message).toMatch(/namespaces: a, b/);
  });
});
