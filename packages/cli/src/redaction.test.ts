import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningUrl, SERVE_HTTP, startCli, stop, waitForStderr } from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';
import { stdioServerScript } from './testing/stdio-script.js';

// Secrets the configuration takes from the environment and from a URL.
const ENV_KEY = 'sk-env-key-7f3a9c2e';
const URL_KEY = 'url-key-51d0be44';
const TOKEN = 'gateway-token-0123456789';
// A query secret with characters a URL escapes, and the forms it takes once escaped.
const SPACED_KEY = "k y^'spaced-9e1c";
const SPACED_FORMS = [SPACED_KEY, "k%20y^'spaced", 'k%20y^%27spaced', 'k+y%5E%27spaced'];

/** Whether `text` shows any of the secrets, in any form. */
function leaks(text: string): string | undefined {
  return [ENV_KEY, URL_KEY, ...SPACED_FORMS].find((form) => text.includes(form));
}

// An upstream over stdio that tells its stderr its API key, answers `leak` with an error result
// naming the key and `throw` with an MCP error naming it.
const LEAKY_SERVER = stdioServerScript({
  name: 'leaky',
  tools: ['leak', 'throw'],
  prelude: `const key = process.env.API_KEY;
process.stderr.write('starting; my API key is ' + key + '\\n');`,
  onCall: `if (params.name === 'leak') {
    reply({ result: { isError: true, content: [{ type: 'text', text: 'refused: key ' + key }] } });
  } else {
    reply({ error: { code: -32000, message: 'upstream rejected key ' + key } });
  }`,
});

// A server that dies at start-up after printing its key: the kind of stderr that ends up in a status.
const DYING_SERVER = `process.stderr.write('fatal: my API key is ' + process.env.API_KEY + ' was refused\\n'); process.exit(1);`;

let dir: string;
let config: string;

/** What the CLI prints on both streams for `args`, run in the test folder with the key set. */
async function run(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const ran = await runInProcess(args, { cwd: dir, env: { LEAK_KEY: ENV_KEY } });
  return { code: ran.code, output: ran.stdout + ran.stderr };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-redaction-'));
  config = join(dir, 'toolplane.config.json');
  const node = process.execPath;
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        leaky: { command: node, args: ['-e', LEAKY_SERVER], env: { API_KEY: '${LEAK_KEY}' } },
        dying: { command: node, args: ['-e', DYING_SERVER], env: { API_KEY: '${LEAK_KEY}' } },
        // Nothing listens on port 9: the connection fails with the URL in hand.
        remote: { url: `http://127.0.0.1:9/mcp?api_key=${URL_KEY}&page=1` },
        spaced: { url: `http://127.0.0.1:9/mcp?key=${SPACED_KEY}` },
      },
      store: 'memory',
      http: { token: TOKEN },
    }),
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('secrets in what leaves the gateway', () => {
  it('masks configured secrets and URL credentials in /healthz, tool errors and stderr', async () => {
    const child = startCli([...SERVE_HTTP, '--config', config], {
      cwd: dir,
      env: { LEAK_KEY: ENV_KEY },
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let client: Client | undefined;
    try {
      const [endpoint] = await Promise.all([
        listeningUrl(child),
        waitForStderr(child, /leaky connected/),
      ]);
      const auth = { Authorization: `Bearer ${TOKEN}` };

      client = new Client({ name: 'redaction-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: auth } }),
      );
      const leaked = await client.callTool({ name: 'leaky__leak' });
      expect(leaked.isError).toBe(true);
      expect(JSON.stringify(leaked.content)).toContain('refused: key ***');
      expect(leaks(JSON.stringify(leaked))).toBeUndefined();
      // The upstream's own -32000 reaches the client as its JSON-RPC error, masked.
      const thrown = await client.callTool({ name: 'leaky__throw' }).then(
        () => expect.unreachable('the upstream answered with an error'),
        (error: unknown) => error as { code: number; message: string },
      );
      expect(thrown.code).toBe(-32000);
      expect(thrown.message).toContain('upstream rejected key ***');
      expect(leaks(thrown.message)).toBeUndefined();

      const health = await fetch(new URL('/healthz', endpoint), { headers: auth });
      const body = await health.text();
      // The details are there (behind the token), the secrets are not.
      expect(body).toContain('dying');
      expect(body).toContain('spaced');
      expect(leaks(body)).toBeUndefined();
    } finally {
      await client?.close();
      await stop(child, 'SIGTERM');
    }
    expect(leaks(stderr)).toBeUndefined();
  });

  it('masks them in the connectors command', async () => {
    const { output } = await run(['connectors', 'status', '--config', config]);
    expect(output).toContain('dying');
    expect(output).toContain('spaced');
    expect(leaks(output)).toBeUndefined();
  });
});
