import { fixtureCommand, isAlive } from '@toolplane/fixtures';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolkit, type Toolkit } from '../toolkit/toolkit.js';
import { runToolkit } from './run-toolkit.js';

const open: Toolkit[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((toolkit) => toolkit.close()));
});

function withFixture(): Toolkit {
  const toolkit = createToolkit();
  open.push(toolkit);
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  return toolkit;
}

describe('runToolkit', () => {
  it('resolves once the connectors are up, and stop ends the run and its children', async () => {
    const toolkit = withFixture();
    const running = await runToolkit(toolkit);
    expect(running.toolkit).toBe(toolkit);
    expect(toolkit.connector('fx')?.state).toBe('connected');
    const pid = toolkit.connectors()[0]?.pid ?? 0;
    expect(isAlive(pid)).toBe(true);
    await running.stop();
    expect(isAlive(pid)).toBe(false);
    expect(await rejectionCodeOf(toolkit.run())).toBe('invalid_config');
  });

  it('stops once however often stop is called', async () => {
    const { stop } = await runToolkit(withFixture());
    const first = stop();
    expect(stop()).toBe(first);
    await expect(first).resolves.toBeUndefined();
    await expect(stop()).resolves.toBeUndefined();
  });

  it('rejects with invalid_config when the toolkit is already running, leaving that run alone', async () => {
    const toolkit = withFixture();
    const { stop } = await runToolkit(toolkit);
    expect(await rejectionCodeOf(runToolkit(toolkit))).toBe('invalid_config');
    expect(toolkit.connector('fx')?.state).toBe('connected');
    await toolkit.callTool('fx:echo', { text: 'still here' });
    await stop();
  });

  it('rejects with invalid_config when the toolkit is closed', async () => {
    const toolkit = withFixture();
    await toolkit.close();
    expect(await rejectionCodeOf(runToolkit(toolkit))).toBe('invalid_config');
  });

  it('rejects with cancelled when the signal aborts before ready, and stops the run', async () => {
    const toolkit = createToolkit({
      connectorDefaults: { connectTimeoutMs: 60_000, backoff: { initialDelayMs: 60_000 } },
    });
    open.push(toolkit);
    // A server that never answers `initialize`, so `ready()` waits until the signal aborts.
    toolkit.addConnector(
      { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
      { namespace: 'hangs' },
    );
    const controller = new AbortController();
    toolkit.onEvent((event) => {
      // Deferred, so the abort lands while `ready()` waits rather than before it is called.
      if (event.type === 'state_change' && event.state === 'connecting') {
        queueMicrotask(() => {
          controller.abort();
        });
      }
    });
    expect(await rejectionCodeOf(runToolkit(toolkit, { signal: controller.signal }))).toBe(
      'cancelled',
    );
    expect(toolkit.connectors()).toEqual([
      expect.objectContaining({ namespace: 'hangs', state: 'disconnected' }),
    ]);
    expect(await rejectionCodeOf(toolkit.run())).toBe('invalid_config');
  });
});
