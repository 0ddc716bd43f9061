import { defineTool, getSession } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardGateway, type DashboardGateway } from '../testing/dashboard-gateway.js';
import { loginCookie } from '../testing/login.js';

const TOKEN = 'dashboard-call-session-token-0123456789';

// A try-it call runs as the session `dashboard`, which the approval audit and per-caller limits
// (builtins' worker threads, code mode's sandboxes) then name and count as one caller.
describe('a call from the dashboard', () => {
  let served: DashboardGateway;
  let cookie: string;

  beforeAll(async () => {
    const whoAmI = defineTool({
      name: 'who_am_i',
      description: 'Says which session called it.',
      input: { type: 'object' },
      run: () => getSession().id ?? 'no session',
    });
    served = await startDashboardGateway(TOKEN, { tools: [whoAmI] });
    cookie = await loginCookie(served.ui, TOKEN);
  });
  afterAll(async () => {
    await served.close();
  });

  it('runs in the session named dashboard', async () => {
    const response = await fetch(new URL('api/call', served.ui), {
      method: 'POST',
      headers: { cookie, origin: served.ui.origin, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'builtin:who_am_i', arguments: {} }),
    });
    expect(response.status).toBe(200);
    const { content } = (await response.json()) as { content: { text?: string }[] };
    expect(content.map((block) => block.text).join('')).toBe('"dashboard"');
  });
});
