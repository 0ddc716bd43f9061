import type { Logger } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardGateway, type DashboardGateway } from '../testing/dashboard-gateway.js';
import { loginCookie } from '../testing/login.js';

const TOKEN = 'dashboard-internal-errors-token-0123456789';
// What a failure in the operator's own code could say: a path and a credential of the host.
const INSIDE = 'cannot read /srv/gateway/filters.json with key sk-live-0123456789';

describe('a dashboard failure that is not a ToolError', () => {
  let served: DashboardGateway;
  let cookie: string;
  const logged: { message: string; data: Record<string, unknown> | undefined }[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (message, data) => {
      logged.push({ message, data });
    },
  };

  beforeAll(async () => {
    served = await startDashboardGateway(TOKEN, {
      visible: () => {
        throw new Error(INSIDE);
      },
      logger,
    });
    cookie = await loginCookie(served.ui, TOKEN);
  });
  afterAll(async () => {
    await served.close();
  });

  it('answers 500 with a message that tells nothing of the inside, and logs the real one', async () => {
    const response = await fetch(new URL('api/tools', served.ui), { headers: { cookie } });
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('internal');
    expect(body.error.message).not.toContain('/srv/gateway');
    expect(body.error.message).not.toContain('sk-live');
    expect(logged).toEqual([
      {
        message: expect.stringContaining('GET /ui/api/tools') as string,
        data: expect.objectContaining({ error: INSIDE }) as Record<string, unknown>,
      },
    ]);
    // The dashboard serves on.
    expect(
      (await fetch(new URL('api/connectors', served.ui), { headers: { cookie } })).status,
    ).toBe(200);
  });
});
