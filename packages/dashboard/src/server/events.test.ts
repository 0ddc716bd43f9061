import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardGateway, type DashboardGateway } from '../testing/dashboard-gateway.js';
import { loginCookie } from '../testing/login.js';

const TOKEN = 'dashboard-events-token-0123456789';

/**
 * The events a stream sends until it ends. A `tools` event of the catalogue's first burst may
 * come at any time before the logout; what matters is what comes after it.
 */
async function eventsUntilEnd(body: ReadableStream<Uint8Array>): Promise<string[]> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  return [...text.matchAll(/^event: (\S+)$/gm)].map((match) => match[1] ?? '');
}

// A real gateway: the live stream is part of a login, and ends with it.
describe('the live event stream', () => {
  let served: DashboardGateway;

  beforeAll(async () => {
    served = await startDashboardGateway(TOKEN);
  });
  afterAll(async () => {
    await served.close();
  });

  const open = async (cookie: string): Promise<ReadableStream<Uint8Array>> => {
    const response = await fetch(new URL('api/events', served.ui), { headers: { cookie } });
    expect(response.status).toBe(200);
    if (response.body === null) throw new Error('the stream has no body');
    return response.body;
  };

  it('carries the calls while its login is open', async () => {
    const cookie = await loginCookie(served.ui, TOKEN);
    const reader = (await open(cookie)).getReader();
    await served.toolkit.callTool('fixture:echo', { text: 'seen' });
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: call')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain('event: call');
    await reader.cancel();
  });

  it('ends, sending nothing more, once its login is logged out', async () => {
    const cookie = await loginCookie(served.ui, TOKEN);
    const stream = await open(cookie);
    const logout = await fetch(new URL('api/logout', served.ui), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: served.ui.origin, cookie },
      body: '{}',
    });
    expect(logout.status).toBe(200);
    const sent = eventsUntilEnd(stream);
    await served.toolkit.callTool('fixture:echo', { text: 'after the logout' });
    // The stream ends (else this waits on), and the call made after the logout is not in it.
    expect(await sent).not.toContain('call');
  });
});
