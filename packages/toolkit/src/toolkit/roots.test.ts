import { everythingCommand } from '@toolplane/fixtures';
import type { Root } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { CALLER_META_KEY, type RootsRequestContext } from '../connectors/connector.js';
import { runToolkit, type RunningToolkit } from '../testing/run-toolkit.js';
import { toolkitHost } from './toolkit.js';
import { createToolkit } from './toolkit.js';

const running: RunningToolkit[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

async function rootsSeen(toolkit: RunningToolkit['toolkit'], caller?: string): Promise<string> {
  const meta = caller === undefined ? {} : { meta: { [CALLER_META_KEY]: caller } };
  const result = await toolkit.callTool('everything:get-roots-list', {}, meta);
  return (result.mcpResult?.content as { text?: string }[]).map((block) => block.text).join('');
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('roots', () => {
  it('are advertised to servers when the handler answers them, and each change is announced', async () => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- roots are bridged in the 2025 era
    let roots: Root[] = [{ uri: 'file:///projects/alpha', name: 'alpha' }];
    const asked: RootsRequestContext[] = [];
    const toolkit = createToolkit({
      upstreamRequests: {
        capabilities: { roots: true },
        handle: () => Promise.reject(new Error('no sampling or elicitation here')),
        listRoots: (context) => {
          asked.push(context);
          return Promise.resolve({ roots });
        },
      },
    });
    toolkit.addConnector(everythingCommand(), { namespace: 'everything' });
    running.push(await runToolkit(toolkit));

    // server-everything offers get-roots-list only to clients with roots.
    expect(toolkit.index.hasTool('everything:get-roots-list')).toBe(true);
    await until(async () => (await rootsSeen(toolkit)).includes('file:///projects/alpha'));
    expect(asked[0]).toMatchObject({ namespace: 'everything' });

    roots = [{ uri: 'file:///projects/beta', name: 'beta' }];
    const before = asked.length;
    toolkitHost(toolkit).rootsChanged('someone');
    // The server asks again at once, outside any call: for whoever's roots changed.
    await until(() => Promise.resolve(asked.length > before));
    expect(asked[before]?.caller).toBe('someone');
    expect(await rootsSeen(toolkit)).toContain('file:///projects/beta');
  });

  it('reach a server when they change while its connection is being made again', async () => {
    // A gateway serves a toolkit whose connectors are already up: they reconnect to advertise
    // roots, and a client session that starts meanwhile tells its roots to the connection on its
    // way out. server-everything asks once, soon after it connects, and keeps the answer: that
    // answer must be the session's roots, not none.
    const toolkit = createToolkit();
    toolkit.addConnector(everythingCommand(), { namespace: 'everything' });
    running.push(await runToolkit(toolkit));
    const host = toolkitHost(toolkit);
    const asked: (string | undefined)[] = [];
    let firstAsk: () => void = () => undefined;
    const askedOnce = new Promise<void>((resolve) => (firstAsk = resolve));
    const renegotiated = host.setUpstreamRequestHandler({
      capabilities: { roots: true },
      handle: () => Promise.reject(new Error('no sampling or elicitation here')),
      listRoots: ({ caller }) => {
        asked.push(caller);
        firstAsk();
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- roots are bridged in the 2025 era
        const roots: Root[] =
          caller === 'ada' ? [{ uri: 'file:///projects/ada', name: 'ada' }] : [];
        return Promise.resolve({ roots });
      },
    });
    host.rootsChanged('ada');
    await renegotiated;
    // No call before the server's own first ask, which must be for ada's roots.
    await askedOnce;
    expect(asked[0]).toBe('ada');
    // Ada's calls: should one reach the server before it has kept that first answer, the roots
    // it asks for during the call are hers too.
    await until(async () => (await rootsSeen(toolkit, 'ada')).includes('file:///projects/ada'));
  });

  it('are not advertised without a handler that answers them', async () => {
    const toolkit = createToolkit({
      upstreamRequests: {
        capabilities: { sampling: true },
        handle: () => Promise.reject(new Error('unused')),
      },
    });
    toolkit.addConnector(everythingCommand(), { namespace: 'everything' });
    running.push(await runToolkit(toolkit));
    expect(toolkit.index.hasTool('everything:trigger-sampling-request')).toBe(true);
    expect(toolkit.index.hasTool('everything:get-roots-list')).toBe(false);
    // Nothing to tell, and nothing breaks.
    toolkitHost(toolkit).rootsChanged();
  });
});
