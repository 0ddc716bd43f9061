import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardGateway, type DashboardGateway } from '../testing/dashboard-gateway.js';
import { loginCookie } from '../testing/login.js';

const TOKEN = 'dashboard-pins-token-0123456789';

interface ChangeView {
  id: string;
  current: string;
  accept: string;
}

// A real gateway (block) with the fixture server behind it, asked over HTTP as the Changes page
// asks: what is pending, and accepting it.
describe('the Changes API', () => {
  let served: DashboardGateway;
  let cookie: string;

  beforeAll(async () => {
    served = await startDashboardGateway(TOKEN, { pinning: 'block' });
    cookie = await loginCookie(served.ui, TOKEN);
  });
  afterAll(async () => {
    await served.close();
  });

  const pending = async (): Promise<ChangeView[]> => {
    const response = await fetch(new URL('api/changes', served.ui), { headers: { cookie } });
    return ((await response.json()) as { changes: ChangeView[] }).changes;
  };
  const accept = (body: Record<string, unknown>) =>
    fetch(new URL('api/accept', served.ui), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: served.ui.origin, cookie },
      body: JSON.stringify(body),
    });
  const answer = async (response: Response) => ({
    status: response.status,
    body: (await response.json()) as { error?: { code?: string }; accepted?: string[] },
  });

  it('accepts only the definition the page showed, refusing one the server offered since', async () => {
    await served.toolkit.callTool('fixture:change-echo', { description: 'Echoes, v4.' });
    await expect.poll(async () => (await pending()).length, { timeout: 15_000 }).toBe(1);
    const [shown] = await pending();
    const reviewed = shown?.current ?? '';
    expect(shown?.accept).toBe(`toolplane tools accept fixture:echo --fingerprint ${reviewed}`);

    await served.toolkit.callTool('fixture:change-echo', { description: 'Echoes, v5. EVIL.' });
    await expect
      .poll(async () => (await pending())[0]?.current, { timeout: 15_000 })
      .not.toBe(reviewed);
    const target = { namespace: 'fixture', tool: 'echo' };
    expect(await answer(await accept({ ...target, fingerprint: reviewed }))).toMatchObject({
      status: 409,
      body: { error: { code: 'conflict' } },
    });
    for (const fingerprint of ['sha256:1cfa', 7, '']) {
      expect(await answer(await accept({ ...target, fingerprint }))).toMatchObject({
        status: 400,
        body: { error: { code: 'invalid_argument' } },
      });
    }
    // Nothing was accepted: the change the page did not show is still pending, and withheld.
    const [still] = await pending();
    expect(still?.current).not.toBe(reviewed);
    expect(
      (await served.pins?.listAudit({ limit: 1000 }))?.filter((r) => r.kind === 'pin.accepted'),
    ).toEqual([]);
    await expect(served.toolkit.callTool('fixture:echo', { text: 'hi' })).rejects.toMatchObject({
      code: 'tool_changed',
    });

    expect(await answer(await accept({ ...target, fingerprint: still?.current }))).toEqual({
      status: 200,
      body: { accepted: ['fixture:echo'] },
    });
    expect(await pending()).toEqual([]);
  });
});
