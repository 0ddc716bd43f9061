import { createMemoryPinStore, createToolkit, silentLogger } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../scripts/build-app.mjs';
import { createCallFeed } from './call-feed.js';
import { dashboardRoutes, staticTokenVerifier } from './routes.js';

const refused = (message: string): unknown =>
  expect.objectContaining({ code: 'invalid_config', message });

describe('dashboardRoutes options', () => {
  it('refuses an option it does not take: a misspelt verify left the dashboard without a login', async () => {
    await buildApp();
    const toolkit = createToolkit();
    const verifier = staticTokenVerifier('dashboard-options-token-0123456789');
    expect(() => dashboardRoutes({ toolkit, verfy: verifier } as never)).toThrow(
      refused('dashboardRoutes: unknown option "verfy"; did you mean "verify"?'),
    );
    // Every option it takes.
    const routes = dashboardRoutes({
      toolkit,
      verify: verifier,
      feed: createCallFeed(),
      pins: createMemoryPinStore(),
      onCall: () => undefined,
      visible: () => true,
      logger: silentLogger,
      path: '/ops',
      sessionTtlMs: 60_000,
      maxSessions: 10,
      maxStreams: 4,
      maxBodyBytes: 65_536,
    });
    expect(routes.path).toBe('/ops');
    routes.close();
    await toolkit.close();
  });

  it('refuses bounds it cannot keep: 0 kept no login, NaN bounded nothing', async () => {
    await buildApp();
    const toolkit = createToolkit();
    for (const [options, message] of [
      [{ maxSessions: 0 }, 'dashboardRoutes: maxSessions must be a whole number, 1 or more, got 0'],
      [
        { maxStreams: Number.NaN },
        'dashboardRoutes: maxStreams must be a whole number, 1 or more, got NaN',
      ],
      [
        { maxBodyBytes: 1.5 },
        'dashboardRoutes: maxBodyBytes must be a whole number, 1 or more, got 1.5',
      ],
    ] as const) {
      expect(() => dashboardRoutes({ toolkit, ...options })).toThrow(refused(message));
    }
    expect(() => dashboardRoutes({ toolkit, sessionTtlMs: 2 ** 31 })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
    await toolkit.close();
  });
});
