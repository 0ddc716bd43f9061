// A connector with OAuth client credentials on a SQLite store this user may read but not write
// (a team's store another user owns, file 0444 in a 0555 directory): a token the connector had
// to fetch anew cannot be saved, and the command goes on with it in memory, saying once that the
// store is read-only. Tests run as root in CI, and root may write anything, so the command runs
// with another user's ids (asOtherUser).
import { randomBytes } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { asOtherUser } from '@toolplane/fixtures';
import {
  serveProtectedMcp,
  startOAuthServer,
  type ProtectedMcp,
  type TestOAuthServer,
} from '@toolplane/fixtures/oauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTempDir } from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';
import { clientCredentialsServer } from './testing/oauth-servers.js';

const dir = useTempDir('read-only-oauth');
const resources: string[] = [];
let as: TestOAuthServer;
let upstream: ProtectedMcp;
const env: Record<string, string> = {
  TOOLPLANE_TOKEN_KEY: randomBytes(32).toString('base64'),
};
const cli = (args: readonly string[]) =>
  runInProcess([...args, '--config', join(dir(), 'toolplane.config.json')], { cwd: dir(), env });

const READ_ONLY = /the SQLite store at ".*store\.db" is read-only/;

beforeAll(async () => {
  as = await startOAuthServer({ resources });
  upstream = await serveProtectedMcp({ issuer: as.issuer });
  resources.push(upstream.url.href);
  env.M2M_SECRET = as.machine.clientSecret;
  // mkdtemp made it 0700: the other user must reach the config and the store.
  await chmod(dir(), 0o755);
  await writeFile(
    join(dir(), 'toolplane.config.json'),
    JSON.stringify({
      store: { sqlite: 'team/store.db' },
      builtins: false,
      mcpServers: {
        m2m: clientCredentialsServer(as, upstream.url),
      },
    }),
  );
  // Its owner connected once: the store holds a token.
  const owner = await cli(['tools', 'list']);
  expect(owner.code, owner.stderr).toBe(0);
  await chmod(join(dir(), 'team', 'store.db'), 0o444);
  await chmod(join(dir(), 'team'), 0o555);
});

afterAll(async () => {
  await chmod(join(dir(), 'team'), 0o755);
  await upstream.close();
  await as.close();
});

describe('an OAuth connector on a store this user may not write', () => {
  it('uses a token it could not save, and says once that the store is read-only', async () => {
    // The stored token is refused from now on: the connector must fetch one, which the store
    // cannot keep (tokens are minted to the second, so the next one must be of a later second).
    upstream.refuseOlderTokens();
    const next = (Math.floor(Date.now() / 1000) + 2) * 1000;
    while (Date.now() < next) await new Promise((resolve) => setTimeout(resolve, 50));
    const ran = await asOtherUser(() => cli(['tools', 'list', '--json']));
    expect(ran.code, ran.stderr).toBe(0);
    const listed = JSON.parse(ran.stdout) as { tools: { id: string }[] };
    expect(listed.tools.map((tool) => tool.id)).toContain('m2m:whoami');
    expect(ran.stderr).not.toMatch(/could not connect|not connected/);
    expect(ran.stderr.split('\n').filter((line) => READ_ONLY.test(line))).toHaveLength(1);
    expect(as.grants.filter((grant) => grant === 'client_credentials').length).toBe(2);
  });
});
