import { startAuthorizationServer, type TestAuthorizationServer } from '@toolplane/fixtures/oauth';
import { startPostgres, type PostgresServer } from '@toolplane/store-postgres/testing';
import { expect } from 'vitest';
import { startAnthropicModel, startGeminiModel, startOpenAIModel } from './example-models.js';
import type { MockModelServer } from './mock-server.js';

// How the tarball test runs each README's first example: the environment a user would set (a
// provider's documented base-URL and key variables, pointed at a local mock model; the database
// and the issuer the README names by variable), what the example must print, and, for one that
// serves until interrupted, what it must answer while it serves.

/** The local services the examples are pointed at, on 127.0.0.1. */
export interface ExampleServices {
  readonly openai: MockModelServer;
  readonly anthropic: MockModelServer;
  readonly gemini: MockModelServer;
  readonly issuer: TestAuthorizationServer;
  readonly postgres: PostgresServer;
}

/** How one README's first example is run and what it must show. */
export interface ExampleRun {
  /** The variables the example reads, as a user would set them. */
  readonly env?: (services: ExampleServices) => Record<string, string>;
  /** The example serves until interrupted (Ctrl-C): SIGINT once its output matches. */
  readonly interruptAfter?: RegExp;
  /**
   * Checks what the serving example answers, before the SIGINT, at the URL it printed (group 1
   * of `interruptAfter`).
   */
  readonly whileServing?: (url: string, services: ExampleServices) => Promise<void>;
  /** What the output must show. */
  readonly prints?: RegExp;
}

/** The audience the oauth README's example names. */
const OAUTH_AUDIENCE = 'https://mcp.example.com/mcp';

/** Starts what the examples talk to; `stop` stops every part that started. */
export async function startExampleServices(): Promise<{
  services: ExampleServices;
  stop: () => Promise<void>;
}> {
  const started: { close(): Promise<void> }[] = [];
  const keep = <T extends { close(): Promise<void> }>(part: T): T => {
    started.push(part);
    return part;
  };
  const stop = async (): Promise<void> => {
    await Promise.allSettled(started.map((part) => part.close()));
  };
  try {
    const services: ExampleServices = {
      openai: keep(await startOpenAIModel()),
      anthropic: keep(await startAnthropicModel()),
      gemini: keep(await startGeminiModel()),
      issuer: keep(
        await startAuthorizationServer({ resources: { [OAUTH_AUDIENCE]: ['tools:admin'] } }),
      ),
      postgres: await startPostgres(),
    };
    keep({ close: () => services.postgres.stop() });
    return { services, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Sends an MCP `initialize` request to `url`, as any client's first, and drops the body. */
export async function initialize(url: string, token?: string): Promise<Response> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'a-stranger', version: '1.0.0' },
      },
    }),
  });
  await response.body?.cancel();
  return response;
}

/** Serves MCP at the URL the example printed. */
async function servesMcp(url: string): Promise<void> {
  expect((await initialize(url)).status).toBe(200);
}

const OPENAI_ENV = (s: ExampleServices) => ({
  OPENAI_BASE_URL: s.openai.url,
  OPENAI_API_KEY: 'sk-mock',
});

/** What each model example prints once the model has read the tool's result. */
const SUM = /The tool said: The sum of 2 and 3 is 5\./;

/** Each public package's first example, by folder (the CLI's is shell, run on its own). */
export const EXAMPLE_RUNS: Readonly<Record<string, ExampleRun>> = {
  'adapter-kit': {},
  toolmodel: {},
  toolindex: {},
  'validator-ajv': {},
  toolrun: {},
  toolkit: {},
  'store-sqlite': {},
  builtins: {},
  gateway: {
    interruptAfter: /MCP endpoint: (http:\/\/127\.0\.0\.1:\d+\/\S*)/,
    whileServing: servesMcp,
  },
  'ai-sdk': { env: OPENAI_ENV, prints: SUM },
  openai: { env: OPENAI_ENV, prints: SUM },
  langchain: { env: OPENAI_ENV, prints: SUM },
  anthropic: {
    env: (s) => ({ ANTHROPIC_BASE_URL: s.anthropic.url, ANTHROPIC_API_KEY: 'sk-ant-mock' }),
    prints: SUM,
  },
  gemini: {
    env: (s) => ({ GOOGLE_GEMINI_BASE_URL: s.gemini.url, GEMINI_API_KEY: 'gemini-mock' }),
    prints: SUM,
  },
  codemode: { prints: /entities: \d+/ },
  'store-postgres': {
    env: (s) => ({ DATABASE_URL: s.postgres.url }),
    prints: /name: 'summarise'/,
  },
  oauth: {
    env: (s) => ({ OAUTH_ISSUER: s.issuer.issuer }),
    interruptAfter: /protected MCP endpoint: (http:\/\/\S+)/,
    async whileServing(url, { issuer }) {
      // No token: refused with the challenge that sends a client to the metadata.
      const refused = await initialize(url);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/resource_metadata="/);
      // A token the issuer minted for this audience: let in.
      const { accessToken } = await issuer.token({
        resource: OAUTH_AUDIENCE,
        scope: 'tools:admin',
      });
      expect((await initialize(url, accessToken)).status).toBe(200);
    },
  },
  dashboard: {
    env: () => ({ TOOLPLANE_TOKEN: 'a-stranger-token-of-32-characters' }),
    interruptAfter: /dashboard: (http:\/\/\S+)/,
    async whileServing(url) {
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      await page.body?.cancel();
    },
  },
};
