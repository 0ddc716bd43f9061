import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  browse,
  serveProtectedMcp,
  startOAuthServer,
  type ProtectedMcp,
  type TestOAuthServer,
} from '@toolplane/fixtures/oauth';
import { createSqliteCredentialStore } from '@toolplane/store-sqlite';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import {
  binCommand,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
} from './testing/cli-process.js';
import { clientCredentialsServer } from './testing/oauth-servers.js';

// `toolplane auth login|status|logout` and `serve`'s use of stored tokens, in process, against a
// real authorization server (oidc-provider) and an MCP server protected by the SDK's bearer check.

const tempDir = useTempDir('auth-command');
const resources: string[] = [];
const tokenKey = randomBytes(32);
let as: TestOAuthServer;
let upstream: ProtectedMcp;
// Everything the CLI printed, in every run.
const printed: string[] = [];

beforeAll(async () => {
  as = await startOAuthServer({ resources });
  upstream = await serveProtectedMcp({ issuer: as.issuer });
  resources.push(upstream.url.href);
});

afterAll(async () => {
  await upstream.close();
  await as.close();
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in this process; `onLine` sees each stdout line as it is written. */
async function cli(
  args: string[],
  options: { env?: Record<string, string>; onLine?: (line: string) => void } = {},
): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    cwd: tempDir(),
    env: {
      PATH: process.env.PATH ?? '',
      NO_COLOR: '1',
      TOOLPLANE_TOKEN_KEY: tokenKey.toString('base64'),
      M2M_SECRET: as.machine.clientSecret,
      ...options.env,
    },
    stdout: {
      write: (chunk: string) => {
        stdout += chunk;
        for (const line of chunk.split('\n')) if (line !== '') options.onLine?.(line);
        return true;
      },
    },
    stderr: {
      write: (chunk: string) => {
        stderr += chunk;
        return true;
      },
    },
  });
  printed.push(stdout, stderr);
  return { code, stdout, stderr };
}

async function writeConfig(): Promise<void> {
  const config = {
    store: { sqlite: 'state/toolplane.db' },
    builtins: false,
    mcpServers: {
      prot: {
        url: upstream.url.href,
        auth: { grant: 'authorization_code', scopes: ['tools:read'] },
      },
      m2m: clientCredentialsServer(as, upstream.url),
    },
  };
  await writeFile(join(tempDir(), 'toolplane.config.json'), JSON.stringify(config));
}

async function storedSecrets(): Promise<string[]> {
  const store = createSqliteCredentialStore({
    path: join(tempDir(), 'state/toolplane.db'),
    key: tokenKey,
  });
  const values: string[] = [];
  for (const key of await store.list()) {
    const tokens = (await store.load(key))?.tokens;
    if (tokens?.access_token) values.push(tokens.access_token);
    if (tokens?.refresh_token) values.push(tokens.refresh_token);
  }
  store.close();
  return values;
}

describe('toolplane auth', () => {
  it('logs in through the loopback redirect, serves with the stored and client-credential tokens, logs out; never prints a secret', async () => {
    await writeConfig();
    const before = await cli(['auth', 'status', '--json']);
    expect(before.code).toBe(0);
    const initial = JSON.parse(before.stdout) as {
      servers: { server: string; loggedIn: boolean }[];
    };
    expect(initial.servers.map((s) => [s.server, s.loggedIn])).toEqual([
      ['prot', false],
      ['m2m', false],
    ]);

    const browsing: Promise<number>[] = [];
    const login = await cli(['auth', 'login', 'prot', '--timeout', '20000'], {
      onLine: (line) => {
        if (line.startsWith('http://')) browsing.push(browse(new URL(line)));
      },
    });
    expect(login.stderr).toContain('logged in to "prot"');
    expect(login.code).toBe(0);
    expect(await Promise.all(browsing)).toEqual([200]);

    const status = await cli(['auth', 'status', '--json']);
    const after = JSON.parse(status.stdout) as {
      servers: { server: string; loggedIn: boolean; scopes: string[]; expiresAt?: number }[];
    };
    expect(after.servers[0]).toMatchObject({ server: 'prot', loggedIn: true });
    expect(after.servers[0]?.scopes).toContain('tools:read');
    expect(after.servers[0]?.expiresAt).toBeGreaterThan(Date.now());

    // Both connectors connect: one with the stored tokens, one by client credentials.
    const connectors = await cli(['connectors', 'status', '--json']);
    const states = (
      JSON.parse(connectors.stdout) as { connectors: { namespace: string; state: string }[] }
    ).connectors;
    expect(states).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ namespace: 'prot', state: 'connected' }),
        expect.objectContaining({ namespace: 'm2m', state: 'connected' }),
      ]),
    );
    const call = await cli(['tools', 'call', 'prot:whoami', '--json']);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain('tools:read');

    const secrets = [...(await storedSecrets()), as.machine.clientSecret];
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    const logout = await cli(['auth', 'logout', 'prot']);
    expect(logout.code).toBe(0);
    expect(logout.stderr).toContain('tokens revoked');
    const gone = JSON.parse((await cli(['auth', 'status', '--json'])).stdout) as {
      servers: { loggedIn: boolean }[];
    };
    expect(gone.servers[0]?.loggedIn).toBe(false);
    const everything = printed.join('\n');
    for (const secret of secrets)
      expect(everything.includes(secret), 'a secret was printed').toBe(false);
  }, 60_000);

  it('authenticates a client with its private key file (private_key_jwt), never printing it', async () => {
    await writeFile(join(tempDir(), 'client.pem'), as.jwtMachine.privateKey);
    const config = {
      store: { sqlite: 'state/toolplane.db' },
      builtins: false,
      mcpServers: {
        jwt: {
          url: upstream.url.href,
          auth: {
            grant: 'client_credentials',
            clientId: as.jwtMachine.clientId,
            privateKeyFile: 'client.pem',
            scopes: ['tools:read'],
          },
        },
      },
    };
    await writeFile(join(tempDir(), 'toolplane.config.json'), JSON.stringify(config));
    const call = await cli(['tools', 'call', 'jwt:whoami', '--json']);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('tools:read');
    const wrong = { ...config.mcpServers.jwt.auth, clientSecret: 's' };
    await writeFile(
      join(tempDir(), 'toolplane.config.json'),
      JSON.stringify({ ...config, mcpServers: { jwt: { url: upstream.url.href, auth: wrong } } }),
    );
    const refused = await cli(['auth', 'status']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('exclude each other');
    const key = as.jwtMachine.privateKey.split('\n')[1] ?? 'no key line';
    expect(printed.join('\n').includes(key), 'the key was printed').toBe(false);
  });

  it('says what to do when the token key is missing or short', async () => {
    await writeConfig();
    const missing = await cli(['auth', 'status'], { env: { TOOLPLANE_TOKEN_KEY: '' } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('TOOLPLANE_TOKEN_KEY');
    const short = await cli(['auth', 'status'], {
      env: { TOOLPLANE_TOKEN_KEY: randomBytes(8).toString('base64') },
    });
    expect(short.code).toBe(2);
  });

  it('refuses auth on a stdio server, client credentials without a secret, and misspelled keys', async () => {
    const write = (server: Record<string, unknown>) =>
      writeFile(
        join(tempDir(), 'toolplane.config.json'),
        JSON.stringify({ store: 'memory', mcpServers: { s: server } }),
      );
    await write({ command: 'node', auth: { grant: 'authorization_code' } });
    expect((await cli(['auth', 'status'])).stderr).toContain('mcpServers.s.auth');
    await write({
      url: 'http://127.0.0.1:1/mcp',
      auth: { grant: 'client_credentials', clientId: 'x' },
    });
    expect((await cli(['auth', 'status'])).stderr).toContain('clientSecret');
    await write({ url: 'http://127.0.0.1:1/mcp', auth: { scope: ['a'] } });
    expect((await cli(['auth', 'status'])).stderr).toContain('did you mean "scopes"');
    await write({ url: 'http://127.0.0.1:1/mcp', auth: { redirectUri: 'http://example.com/cb' } });
    expect((await cli(['auth', 'status'])).stderr).toContain('loopback');
  });

  it('a running serve picks up a login made in another process, without a restart', async () => {
    await writeConfig();
    const serve = startCli([...SERVE_HTTP], {
      command: binCommand,
      cwd: tempDir(),
      env: {
        TOOLPLANE_TOKEN_KEY: tokenKey.toString('base64'),
        M2M_SECRET: as.machine.clientSecret,
      },
    });
    let served = '';
    serve.stderr?.on('data', (chunk: Buffer) => (served += chunk.toString()));
    const client = new Client({ name: 'auth-command-test', version: '0.0.0' });
    try {
      const url = await listeningUrl(serve);
      await client.connect(new StreamableHTTPClientTransport(url));
      const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
      // Not logged in: prot's tools are not listed, and a call says what to run.
      expect(await names()).not.toContain('prot__whoami');
      const refused = await client.callTool({ name: 'prot__whoami', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('toolplane auth login prot');

      const browsing: Promise<number>[] = [];
      const login = await cli(['auth', 'login', 'prot', '--timeout', '20000'], {
        onLine: (line) => {
          if (line.startsWith('http://')) browsing.push(browse(new URL(line)));
        },
      });
      expect(login.code).toBe(0);
      expect(await Promise.all(browsing)).toEqual([200]);

      // The serving process finds the new tokens in the store and connects.
      const deadline = Date.now() + 15_000;
      while (!(await names()).includes('prot__whoami') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const answer = await client.callTool({ name: 'prot__whoami', arguments: {} });
      expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
      expect(JSON.stringify(answer.content)).toContain('tools:read');
      const everything = [...printed, served].join('\n');
      for (const secret of await storedSecrets())
        expect(everything.includes(secret), 'a secret was printed').toBe(false);
    } finally {
      await client.close();
      await stop(serve, 'SIGTERM');
    }
  }, 60_000);
});
