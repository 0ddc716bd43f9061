import { defineTool, getSession } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardGateway, type DashboardGateway } from '../testing/dashboard-gateway.js';
import { loginCookie } from '../testing/login.js';

const TOKEN = 'dashboard-call-session-token-0123456789';

interface Step {
  readonly content?: { text?: string }[];
  readonly question?: { id: string; approval: boolean };
}

// A try-it call runs in its login's own session, `dashboard:<digest>`, which the approval audit
// names and an approval remembered for the session is kept for.
describe('a call from the dashboard', () => {
  let served: DashboardGateway;
  let cookie: string;
  let other: string;

  const send = (route: string, body: unknown, as: string) =>
    fetch(new URL(`api/${route}`, served.ui), {
      method: 'POST',
      headers: { cookie: as, origin: served.ui.origin, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const post = async (route: string, body: unknown, as: string): Promise<Step> => {
    const response = await send(route, body, as);
    expect(response.status).toBe(200);
    return (await response.json()) as Step;
  };
  const text = (step: Step) => (step.content ?? []).map((block) => block.text).join('');

  beforeAll(async () => {
    const whoAmI = defineTool({
      name: 'who_am_i',
      description: 'Says which session called it.',
      input: { type: 'object' },
      run: () => getSession().id ?? 'no session',
    });
    served = await startDashboardGateway(TOKEN, {
      tools: [whoAmI],
      approval: {
        destructive: false,
        tools: ['fixture:delete-item'],
        remember: 'session',
        timeoutMs: 2_000,
      },
    });
    cookie = await loginCookie(served.ui, TOKEN);
    other = await loginCookie(served.ui, TOKEN);
  });
  afterAll(async () => {
    await served.close();
  });

  it('runs in a session of its login, named without the login cookie', async () => {
    const mine = text(await post('call', { tool: 'builtin:who_am_i', arguments: {} }, cookie));
    const theirs = text(await post('call', { tool: 'builtin:who_am_i', arguments: {} }, other));
    expect(mine).toMatch(/^"dashboard:[\w-]{16}"$/);
    expect(theirs).toMatch(/^"dashboard:[\w-]{16}"$/);
    expect(mine).not.toBe(theirs);
    // The same login, the same session.
    expect(text(await post('call', { tool: 'builtin:who_am_i', arguments: {} }, cookie))).toBe(
      mine,
    );
    for (const login of [cookie, other]) {
      const id = /=([^.;]+)\./.exec(login)?.[1] ?? '';
      expect(id).not.toBe('');
      expect(mine.includes(id) || theirs.includes(id)).toBe(false);
    }
  });

  it("keeps an operator's remembered approval for that operator's login alone", async () => {
    const call = { tool: 'fixture:delete-item', arguments: { id: 'remembered' } };
    const asked = await post('call', call, cookie);
    expect(asked.question?.approval).toBe(true);
    const approve = { action: 'accept', content: { approve: true } };
    const done = await post('answer', { question: asked.question?.id, ...approve }, cookie);
    expect(text(done)).toBe('deleted remembered');
    // Remembered for this login: no question the second time.
    expect(text(await post('call', call, cookie))).toBe('deleted remembered');
    // Another operator's login is asked for the same call.
    const theirs = await post('call', call, other);
    expect(theirs.question?.approval).toBe(true);
    const declined = await send(
      'answer',
      { question: theirs.question?.id, action: 'decline' },
      other,
    );
    expect(declined.status).toBe(403);
  });
});
