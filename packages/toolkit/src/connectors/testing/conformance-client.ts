// Child-process entry for the MCP conformance client scenarios: the conformance CLI runs this
// program with the test server's URL as its only argument and the scenario's name in
// MCP_CONFORMANCE_SCENARIO. The program is a toolkit with one HTTP connector, used as an
// application uses it: it calls the tools the scenario names with plain `toolkit.callTool`, and
// answers upstream elicitation with the toolkit's `upstreamRequests` handler (no caller tags: the
// toolkit ties each call to its requests). Exits non-zero when a step fails.
import type { ElicitResult } from '@modelcontextprotocol/client';
import { createToolkit, type Toolkit } from '../../toolkit/toolkit.js';
import { createConnectorOAuth } from '../oauth/connector-oauth.js';
import { MemoryCredentialStore } from '../oauth/credential-store.js';

const NAMESPACE = 'conformance';

/** What the program does in each scenario, once the toolkit is connected. */
const scenarios: Readonly<Record<string, (toolkit: Toolkit) => Promise<void>>> = {
  // Connecting is the scenario: the handshake is what the server checks.
  initialize: () => Promise.resolve(),
  tools_call: async (toolkit) => {
    await callListed(toolkit, 'add_numbers', { a: 2, b: 3 });
  },
  'elicitation-sep1034-client-defaults': async (toolkit) => {
    await callListed(toolkit, 'test_client_elicitation_defaults', {});
  },
  'sse-retry': async (toolkit) => {
    await callListed(toolkit, 'test_reconnection', {});
  },
};

/** Calls `name` after checking that the server listed it, and prints what it answered. */
async function callListed(
  toolkit: Toolkit,
  name: string,
  input: Record<string, unknown>,
): Promise<void> {
  const listed = toolkit.connector(NAMESPACE)?.lists.tools.map((tool) => tool.name) ?? [];
  if (!listed.includes(name)) {
    throw new Error(`the server did not list "${name}" (it listed: ${listed.join(', ')})`);
  }
  const result = await toolkit.callTool(`${NAMESPACE}:${name}`, input);
  process.stdout.write(`${name}: ${JSON.stringify(result.structured ?? null)}\n`);
}

/**
 * The OAuth client of an `auth/*` scenario: code + PKCE whose "browser" follows the test
 * authorization server's redirect to the loopback listener, or client credentials (a secret or a
 * `private_key_jwt` key) from the scenario's context (MCP_CONFORMANCE_CONTEXT).
 */
function oauthFor(url: string, scenario: string) {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
    client_id?: string;
    client_secret?: string;
    private_key_pem?: string;
    signing_algorithm?: string;
  };
  const clientCredentials = scenario.startsWith('auth/client-credentials');
  return createConnectorOAuth({
    server: NAMESPACE,
    url,
    store: new MemoryCredentialStore(),
    grant: clientCredentials ? 'client_credentials' : 'authorization_code',
    ...(context.client_id === undefined ? {} : { clientId: context.client_id }),
    ...(context.client_secret === undefined ? {} : { clientSecret: context.client_secret }),
    ...(context.private_key_pem === undefined ? {} : { privateKey: context.private_key_pem }),
    ...(context.signing_algorithm === undefined
      ? {}
      : { privateKeyAlg: context.signing_algorithm }),
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    interactive: async (authorizationUrl) => {
      const answer = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = answer.headers.get('location');
      if (location === null) throw new Error(`no redirect from ${authorizationUrl.origin}`);
      await fetch(location);
    },
  });
}

/** Accepts every form without filling anything in: the connector supplies the server's defaults. */
function acceptEmpty(): Promise<ElicitResult> {
  return Promise.resolve({ action: 'accept', content: {} });
}

/** The auth scenarios serve one tool, whatever its name: what a call needs a token for. */
function firstTool(toolkit: Toolkit): string {
  return toolkit.connector(NAMESPACE)?.lists.tools[0]?.name ?? 'none';
}

async function main(): Promise<void> {
  const url = process.argv[2];
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const run = scenario.startsWith('auth/')
    ? (toolkit: Toolkit) => callListed(toolkit, firstTool(toolkit), {})
    : Object.hasOwn(scenarios, scenario)
      ? scenarios[scenario]
      : undefined;
  if (url === undefined || run === undefined) {
    throw new Error(
      `usage: MCP_CONFORMANCE_SCENARIO=<${Object.keys(scenarios).join('|')}> conformance-client <url>`,
    );
  }
  const toolkit = createToolkit({
    upstreamRequests: { capabilities: { elicitation: true }, handle: acceptEmpty },
  });
  toolkit.addConnector(
    scenario.startsWith('auth/') ? { url, oauth: oauthFor(url, scenario) } : url,
    { namespace: NAMESPACE },
  );
  const stop = new AbortController();
  const running = toolkit.run({ signal: stop.signal });
  try {
    await toolkit.ready();
    const connector = toolkit.connector(NAMESPACE);
    if (connector?.state !== 'connected') {
      throw connector?.unavailable() ?? new Error('no connector');
    }
    await run(toolkit);
  } finally {
    stop.abort();
    await running;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
