import { everythingCommand, isAlive, markedNodeSource } from '@toolplane/fixtures';
import { describe, it, type TestContext } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { runToolkit, type RunningToolkit } from '../testing/run-toolkit.js';
import { toolkitHost } from '../toolkit/toolkit.js';
import { createToolkit, type ConnectionMode, type ToolkitOptions } from '../toolkit/toolkit.js';

type Toolkit = RunningToolkit['toolkit'];

/** How a test has its toolkits stopped once it is over. */
type Finish = Pick<TestContext, 'onTestFinished'>;

const marked = new WeakMap<Toolkit, () => number[]>();

/**
 * The server-everything processes of `toolkit` (one made by {@link start}): its source is marked,
 * so the tests can run at once and still each count only their own.
 */
function everythings(toolkit: Toolkit): number[] {
  const pids = marked.get(toolkit);
  if (pids === undefined) throw new Error('a toolkit made by start() only');
  return pids();
}

/** Runs `toolkit`, stopped once the test is over. */
async function run(context: Finish, toolkit: Toolkit): Promise<RunningToolkit> {
  const started = await runToolkit(toolkit);
  context.onTestFinished(() => started.stop());
  return started;
}

async function start(
  context: Finish,
  connection: ConnectionMode,
  options: ToolkitOptions = {},
): Promise<Toolkit> {
  const toolkit = createToolkit(options);
  const { source, pids } = markedNodeSource(everythingCommand());
  marked.set(toolkit, pids);
  toolkit.addConnector(source, { namespace: 'everything', connection });
  await run(context, toolkit);
  return toolkit;
}

/** server-everything's per-connection switch: says Started, then Stopped, on one connection. */
async function toggle(toolkit: RunningToolkit['toolkit'], sessionKey?: string): Promise<string> {
  const result = await toolkit.callTool(
    'everything:toggle-subscriber-updates',
    {},
    sessionKey === undefined ? {} : { sessionKey },
  );
  const [first] = result.mcpResult?.content as { text: string }[];
  return first?.text.split(' ')[0] ?? '';
}

function sessionConnections(toolkit: RunningToolkit['toolkit']): number | undefined {
  return toolkit.connectors().find((c) => c.namespace === 'everything')?.sessionConnections;
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('not in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Each test runs toolkits of its own, and finds only its own servers' processes: the tests run at
// once, their servers' starts, idle times and long calls overlapping.
describe('per-session connections', { concurrent: true }, () => {
  it('give each session a server of its own, where a shared one is shared', async (context) => {
    const { expect } = context;
    const shared = await start(context, 'shared');
    expect(await toggle(shared, 'alice')).toBe('Started');
    expect(await toggle(shared, 'bob')).toBe('Stopped');
    expect(sessionConnections(shared)).toBeUndefined();

    const isolated = await start(context, 'per-session');
    expect(await toggle(isolated, 'alice')).toBe('Started');
    expect(await toggle(isolated, 'bob')).toBe('Started');
    expect(await toggle(isolated, 'alice')).toBe('Stopped');
    expect(sessionConnections(isolated)).toBe(2);
    // A call that names no session uses the shared connection, which lists the tools.
    expect(await toggle(isolated)).toBe('Started');
  });

  it('get prompts and read resources on the session’s connection too', async (context) => {
    const { expect } = context;
    const toolkit = await start(context, 'per-session');
    const prompt = await toolkit.getPrompt(
      'everything:args-prompt',
      { city: 'Paris' },
      { sessionKey: 'alice' },
    );
    expect(prompt.text).toContain('Paris');
    expect(sessionConnections(toolkit)).toBe(1);
    const uri = toolkit.connector('everything')?.lists.resources[0]?.uri ?? '';
    const read = await toolkit.readResource(`${uri}#everything`, { sessionKey: 'bob' });
    expect(read.uri).toBe(uri);
    expect(sessionConnections(toolkit)).toBe(2);
  });

  it('run what a session’s call calls in turn on that session’s connections', async (context) => {
    const { expect } = context;
    const toolkit = createToolkit();
    toolkit.addConnector(everythingCommand(), {
      namespace: 'everything',
      connection: 'per-session',
    });
    // A tool of the toolkit's own that calls the server, naming no session itself.
    toolkit.addTool(
      defineTool({
        name: 'toggle_twice',
        description: 'toggles server-everything’s subscriber updates twice',
        input: z.object({}),
        run: async () => [await toggle(toolkit), await toggle(toolkit)].join(' '),
      }),
    );
    await run(context, toolkit);
    expect(await toggle(toolkit, 'alice')).toBe('Started');
    const nested = await toolkit.callTool('builtin:toggle_twice', {}, { sessionKey: 'alice' });
    expect(nested.structured).toBe('Stopped Started');
    expect(sessionConnections(toolkit)).toBe(1);
  });

  it('close a session’s connection, and its process, when the session ends', async (context) => {
    const { expect } = context;
    const toolkit = await start(context, 'per-session');
    const before = everythings(toolkit);
    await toggle(toolkit, 'alice');
    const alice = everythings(toolkit).filter((pid) => !before.includes(pid));
    expect(alice).toHaveLength(1);
    const pid = toolkit.connector('everything')?.pid;
    await toggle(toolkit, 'bob');
    expect(sessionConnections(toolkit)).toBe(2);
    await toolkitHost(toolkit).endSession('alice');
    expect(sessionConnections(toolkit)).toBe(1);
    expect(isAlive(alice[0] ?? 0)).toBe(false);
    // The shared connection stays; a new call of alice's starts afresh.
    expect(toolkit.connector('everything')?.pid).toBe(pid);
    expect(await toggle(toolkit, 'alice')).toBe('Started');
  });

  it('keep at most max per server: the idle one least recently used makes room', async (context) => {
    const { expect } = context;
    const toolkit = await start(context, 'per-session', { sessionConnections: { max: 2 } });
    const before = everythings(toolkit);
    await toggle(toolkit, 'alice');
    const alice = everythings(toolkit).filter((pid) => !before.includes(pid));
    await toggle(toolkit, 'bob');
    await toggle(toolkit, 'carol');
    expect(sessionConnections(toolkit)).toBe(2);
    await until(() => !isAlive(alice[0] ?? 0));
    // alice's was closed for carol's: her next call starts on a new connection.
    expect(await toggle(toolkit, 'bob')).toBe('Stopped');
    expect(await toggle(toolkit, 'alice')).toBe('Started');
  });

  it('refuse a session when every connection has a call in flight', async (context) => {
    const { expect } = context;
    const toolkit = await start(context, 'per-session', { sessionConnections: { max: 1 } });
    const long = toolkit.callTool(
      'everything:trigger-long-running-operation',
      { duration: 2, steps: 2 },
      { sessionKey: 'alice' },
    );
    await until(() => sessionConnections(toolkit) === 1);
    const refused = await toolkit
      .callTool('everything:echo', { message: 'hi' }, { sessionKey: 'bob' })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'rate_limited' });
    await long;
    expect(await toggle(toolkit, 'bob')).toBe('Started');
  });

  it('close connections idle for idleMs', async (context) => {
    const { expect } = context;
    const toolkit = await start(context, 'per-session', { sessionConnections: { idleMs: 200 } });
    const before = everythings(toolkit);
    await toggle(toolkit, 'alice');
    const alice = everythings(toolkit).filter((pid) => !before.includes(pid));
    expect(alice).toHaveLength(1);
    expect(sessionConnections(toolkit)).toBe(1);
    await until(() => sessionConnections(toolkit) === 0);
    await until(() => !isAlive(alice[0] ?? 0));
    // The shared connection is not reaped.
    expect(toolkit.connector('everything')?.state).toBe('connected');
  });

  it('leave no process behind when the toolkit closes', async (context) => {
    const { expect } = context;
    const toolkit = createToolkit();
    const { source, pids: own } = markedNodeSource(everythingCommand());
    toolkit.addConnector(source, { namespace: 'everything', connection: 'per-session' });
    const started = await run(context, toolkit);
    await toggle(toolkit, 'alice');
    const pids = own();
    expect(pids.length).toBeGreaterThanOrEqual(2);
    await started.stop();
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  it('refuse an unknown connection mode and bounds that are not positive', ({ expect }) => {
    const toolkit = createToolkit();
    expect(() =>
      toolkit.addConnector(everythingCommand(), { connection: 'pooled' as ConnectionMode }),
    ).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    for (const sessionConnections of [{ max: 0 }, { max: 1.5 }, { idleMs: -1 }]) {
      expect(() => createToolkit({ sessionConnections })).toThrow(
        expect.objectContaining({ code: 'invalid_config' }),
      );
    }
  });
});
