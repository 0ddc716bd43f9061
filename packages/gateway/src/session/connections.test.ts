import { PassThrough } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { everythingCommand, isAlive, markedNodeSource } from '@toolplane/fixtures';
import { createToolkit, type ConnectionMode, type Toolkit } from '@toolplane/toolkit';
import { runToolkit } from '@toolplane/toolkit/testing';
import { describe, it, type TestContext } from 'vitest';
import { serveHttp, type ServeHttpOptions } from '../http/serve.js';
import { serveStdio } from '../stdio/serve.js';
import { StdioTransport } from '../stdio/transport.js';
import { exerciseGatedTools } from '../testing/everything.js';

// server-everything offers its dynamic resources by template, and lets them be subscribed to.
const DYNAMIC = 'demo://resource/dynamic/text/1';

interface Served {
  readonly toolkit: Toolkit;
  readonly url: URL;
  /**
   * Its server-everything processes: its source is marked, so the tests can run at once and
   * still each count only their own.
   */
  readonly everythings: () => number[];
  close(): Promise<void>;
}

/** How a test has what it started closed once it is over (last started, first closed). */
type Finish = Pick<TestContext, 'onTestFinished'>;

/**
 * A gateway in front of server-everything (transparent), connected `connection`-wise; closed
 * once the test is over.
 */
async function serve(
  context: Finish,
  connection: ConnectionMode,
  options: Partial<ServeHttpOptions> = {},
): Promise<Served> {
  const toolkit = createToolkit();
  const { source, pids } = markedNodeSource(everythingCommand());
  toolkit.addConnector(source, { namespace: 'everything', connection });
  const running = await runToolkit(toolkit);
  const gateway = await serveHttp(toolkit, { port: 0, transparent: 'everything', ...options });
  const entry = {
    toolkit,
    url: gateway.url,
    everythings: pids,
    close: async () => {
      await gateway.close();
      await running.stop();
    },
  };
  context.onTestFinished(() => entry.close());
  return entry;
}

interface Session {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly logs: unknown[];
  /** The URIs of the resources/updated notifications it got. */
  readonly updates: string[];
}

async function connect(context: Finish, gateway: Served): Promise<Session> {
  const client = new Client({ name: 'session', version: '0.0.0' });
  const logs: unknown[] = [];
  client.setNotificationHandler('notifications/message', ({ params }) => {
    logs.push(params.data);
  });
  const updates: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', ({ params }) => {
    updates.push(params.uri);
  });
  const transport = new StreamableHTTPClientTransport(gateway.url);
  await client.connect(transport);
  context.onTestFinished(() => client.close());
  return { client, transport, logs, updates };
}

/** Calls one of server-everything's toggles; the first word of its answer: Started or Stopped. */
async function toggle(
  session: Pick<Session, 'client'>,
  name = 'toggle-subscriber-updates',
): Promise<string> {
  const result = await session.client.callTool({ name, arguments: {} });
  const [first] = result.content;
  return first?.type === 'text' ? (first.text.split(' ')[0] ?? '') : '';
}

/**
 * Whether a log message is one of toggle-simulated-logging's ("Info-level message", "Alert
 * level-message"...); server-everything logs others, such as the roots it got on connecting.
 */
const simulated = (data: unknown): boolean => /level.message/.test(String(data));

function sessionConnections(gateway: Served): number | undefined {
  return gateway.toolkit.connectors()[0]?.sessionConnections;
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('not in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Another dynamic resource: subscribing to it makes the session's server log an acknowledgement.
const MARKER = 'demo://resource/dynamic/text/2';

/**
 * Makes `session`'s server send it a log message (server-everything acknowledges a subscription
 * with one) and waits until the session hears it: whatever reached the gateway before, for
 * whichever session, has been relayed by then.
 */
async function marker(session: Session): Promise<void> {
  await session.client.subscribeResource({ uri: MARKER });
  await until(() => session.logs.some((data) => String(data).includes(`for URI: ${MARKER}`)));
}

// Each test serves a gateway of its own, and finds only its own servers' processes: the tests
// run at once, their servers' starts overlapping.
describe('upstream connections per client session', { concurrent: true }, () => {
  it('shares one server between sessions by default', async (context) => {
    const { expect } = context;
    const gateway = await serve(context, 'shared');
    const [alice, bob] = [await connect(context, gateway), await connect(context, gateway)];
    expect(await toggle(alice)).toBe('Started');
    // bob switched off what alice switched on.
    expect(await toggle(bob)).toBe('Stopped');
  });

  it('gives each session a server of its own with per-session', async (context) => {
    const { expect } = context;
    const gateway = await serve(context, 'per-session');
    const [alice, bob] = [await connect(context, gateway), await connect(context, gateway)];
    expect(await toggle(alice)).toBe('Started');
    expect(await toggle(bob)).toBe('Started');
    expect(await toggle(alice)).toBe('Stopped');
    expect(sessionConnections(gateway)).toBe(2);
  });

  it('sends what a session’s own server logs to that session alone', async (context) => {
    const { expect } = context;
    const gateway = await serve(context, 'per-session');
    const [alice, bob] = [await connect(context, gateway), await connect(context, gateway)];
    await toggle(bob);
    // server-everything logs once at once when simulated logging is switched on.
    expect(await toggle(alice, 'toggle-simulated-logging')).toBe('Started');
    await until(() => alice.logs.some(simulated));
    // Bob's own server's later message reaches him, and none of alice's has.
    await marker(bob);
    expect(bob.logs.filter(simulated)).toEqual([]);
    await toggle(alice, 'toggle-simulated-logging');
  });

  it('relays a shared server’s log messages to every session', async (context) => {
    const { expect } = context;
    const gateway = await serve(context, 'shared');
    const [alice, bob] = [await connect(context, gateway), await connect(context, gateway)];
    expect(await toggle(alice, 'toggle-simulated-logging')).toBe('Started');
    await until(() => alice.logs.some(simulated) && bob.logs.some(simulated));
    await toggle(alice, 'toggle-simulated-logging');
  });

  it('subscribes on the session’s own connection, whose updates reach that session alone', async (context) => {
    const { expect } = context;
    const gateway = await serve(context, 'per-session');
    const [alice, bob] = [await connect(context, gateway), await connect(context, gateway)];
    await alice.client.subscribeResource({ uri: DYNAMIC });
    await bob.client.subscribeResource({ uri: DYNAMIC });
    // server-everything sends an update for each subscription at once when updates go on.
    expect(await toggle(alice)).toBe('Started');
    await until(() => alice.updates.includes(DYNAMIC));
    await marker(bob);
    expect(bob.updates).toEqual([]);
    expect(sessionConnections(gateway)).toBe(2);
    await alice.client.unsubscribeResource({ uri: DYNAMIC });
    await toggle(alice);
  });

  it('asks the calling client when a session’s own server samples or elicits', async (context) => {
    const { expect } = context;
    const gateway = await serve(context, 'per-session');
    const seen = await exerciseGatedTools(new StreamableHTTPClientTransport(gateway.url), 'alice');
    expect(seen.sampled).toContain('sampled alice');
    expect(seen.elicited).toContain('elicited alice');
    expect(seen.asked).toEqual(['sampling', 'elicitation']);
  });

  it('ends a session’s server when the client ends the session (DELETE)', async (context) => {
    const { expect } = context;
    const gateway = await serve(context, 'per-session');
    const alice = await connect(context, gateway);
    const before = gateway.everythings();
    await toggle(alice);
    const own = gateway.everythings().filter((pid) => !before.includes(pid));
    expect(own).toHaveLength(1);
    await alice.transport.terminateSession();
    await until(() => sessionConnections(gateway) === 0);
    await until(() => !isAlive(own[0] ?? 0));
  });

  it('ends a session’s server when the gateway evicts the session', async (context) => {
    const { expect } = context;
    const gateway = await serve(context, 'per-session', { maxSessions: 1 });
    const alice = await connect(context, gateway);
    const before = gateway.everythings();
    await toggle(alice);
    const own = gateway.everythings().filter((pid) => !before.includes(pid));
    expect(own).toHaveLength(1);
    // A second session takes the one place: alice's session, idle, is evicted.
    const bob = await connect(context, gateway);
    await until(() => !isAlive(own[0] ?? 0));
    expect(await toggle(bob)).toBe('Started');
    expect(sessionConnections(gateway)).toBe(1);
  });

  it('ends the session’s server when the stdio client closes its input', async (context) => {
    const { expect } = context;
    const toolkit = createToolkit();
    const { source, pids: everythings } = markedNodeSource(everythingCommand());
    toolkit.addConnector(source, { namespace: 'everything', connection: 'per-session' });
    const running = await runToolkit(toolkit);
    context.onTestFinished(() => running.stop());
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    await serveStdio(toolkit, { stdin, stdout, transparent: 'everything' });
    const client = new Client({ name: 'stdio-session', version: '0.0.0' });
    await client.connect(new StdioTransport(stdout, stdin));
    const before = everythings();
    expect(await toggle({ client })).toBe('Started');
    const own = everythings().filter((pid) => !before.includes(pid));
    expect(own).toHaveLength(1);
    stdin.end();
    await until(() => !isAlive(own[0] ?? 0));
    expect(toolkit.connectors()[0]?.sessionConnections).toBe(0);
  });
});
