import { fixtureCommand, isAlive } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { runToolkit, type RunningToolkit } from '../testing/run-toolkit.js';
import { createToolkit, type Toolkit } from './toolkit.js';

const running: RunningToolkit[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

async function start(namespace: string): Promise<Toolkit> {
  const toolkit = createToolkit();
  toolkit.addConnector(fixtureCommand('stdio'), { namespace });
  const started = await runToolkit(toolkit);
  running.push(started);
  return toolkit;
}

/** Starts the fixture's `slow` call and resolves once the server has begun it (its progress 0). */
async function slowCall(toolkit: Toolkit, id: string, ms: number) {
  let begun: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    begun = resolve;
  });
  const result = toolkit.callTool(
    id,
    { ms },
    {
      onProgress: () => {
        begun();
      },
    },
  );
  await started;
  // Wrapped: an async function returning the call's promise would wait for it to end.
  return { result };
}

describe('removeConnector with drainMs', () => {
  it('lets a call in flight finish on the old connection, then ends the child', async () => {
    const toolkit = await start('fx');
    const pid = toolkit.connector('fx')?.pid;
    const { result: call } = await slowCall(toolkit, 'fx:slow', 1_500);
    const removing = toolkit.removeConnector('fx', { drainMs: 30_000 });
    // Out of the lists at once, and the namespace is free for a replacement.
    expect((await toolkit.list({ type: 'tool' })).tools.some((t) => t.namespace === 'fx')).toBe(
      false,
    );
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    const result = await call;
    expect(result.mcpResult?.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(await removing).toBe(true);
    expect(pid !== undefined && isAlive(pid)).toBe(false);
    await toolkit.connector('fx')?.ready();
    expect(toolkit.connector('fx')?.pid).not.toBe(pid);
  });

  it('closes at once without drainMs, failing the call in flight', async () => {
    const toolkit = await start('fx');
    const { result } = await slowCall(toolkit, 'fx:slow', 60_000);
    const outcome = result.then(
      () => 'answered',
      (error: unknown) => (error as { code?: string }).code,
    );
    expect(await toolkit.removeConnector('fx')).toBe(true);
    expect(await outcome).not.toBe('answered');
  });

  it('refuses a drain bound a timer cannot keep before anything is removed', async () => {
    const toolkit = await start('fx');
    const pid = toolkit.connector('fx')?.pid;
    for (const drainMs of [1.5, -1, Number.NaN, 2 ** 31]) {
      const error = await toolkit.removeConnector('fx', { drainMs }).then(
        () => undefined,
        (caught: unknown) => caught as { code?: string; message?: string },
      );
      expect(error?.code, String(drainMs)).toBe('invalid_config');
      expect(error?.message).toContain('removeConnector drainMs must be a whole number');
    }
    // Still served, its child still running: nothing was half removed.
    expect(toolkit.connector('fx')?.pid).toBe(pid);
    expect(pid !== undefined && isAlive(pid)).toBe(true);
    expect((await toolkit.callTool('fx:echo', { text: 'still here' })).structured).toBeDefined();
    expect(await toolkit.removeConnector('fx', { drainMs: 0 })).toBe(true);
    expect(isAlive(pid as number)).toBe(false);
  });
});
