import { everythingCommand } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { runToolkit, type RunningToolkit } from '../testing/run-toolkit.js';
import { toolkitHost } from './toolkit.js';
import { createToolkit } from './toolkit.js';
import type { Toolkit } from './types.js';

const running: RunningToolkit[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

describe('toolkitHost', () => {
  it('answers how each server is connected', () => {
    const toolkit = createToolkit();
    toolkit.addConnector(everythingCommand(), { namespace: 'shared' });
    toolkit.addConnector(everythingCommand(), { namespace: 'own', connection: 'per-session' });
    const host = toolkitHost(toolkit);
    expect(host.connectionOf('shared')).toBe('shared');
    expect(host.connectionOf('own')).toBe('per-session');
    expect(host.connectionOf('nowhere')).toBeUndefined();
  });

  it('subscribes to and unsubscribes from a connected server’s resource', async () => {
    const toolkit = createToolkit();
    toolkit.addConnector(everythingCommand(), { namespace: 'everything' });
    running.push(await runToolkit(toolkit));
    const host = toolkitHost(toolkit);
    const uri = 'demo://resource/dynamic/text/1';
    expect(await host.subscribeResource('everything', uri)).toBe(true);
    await expect(host.unsubscribeResource('everything', uri)).resolves.toBeUndefined();
    // Nothing to subscribe to where there is no server.
    expect(await host.subscribeResource('nowhere', uri)).toBe(false);
  });

  it('is the same hooks object on every ask, so a gateway may keep it', () => {
    const toolkit = createToolkit();
    expect(toolkitHost(toolkit)).toBe(toolkitHost(toolkit));
  });

  it('refuses a Toolkit that createToolkit did not make with invalid_argument', () => {
    // Any object typed as a Toolkit, such as a hand-written wrapper, has no host hooks.
    const handMade: Toolkit = { ...createToolkit() };
    Reflect.deleteProperty(handMade, Symbol.for('@toolplane/toolkit.host'));
    expect(() => toolkitHost(handMade)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
