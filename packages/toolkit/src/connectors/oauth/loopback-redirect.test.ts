import { ToolError } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { assertLoopbackRedirect, listenForRedirect } from './loopback-redirect.js';

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return ToolError.isInstance(error) ? error.code : 'not a ToolError';
  }
  return undefined;
}

describe('listenForRedirect', () => {
  it('accepts one redirect with the right state on 127.0.0.1, then stops listening', async () => {
    const listener = await listenForRedirect({ state: 's1', timeoutMs: 10_000 });
    const url = new URL(listener.redirectUrl);
    expect(url.hostname).toBe('127.0.0.1');
    expect(Number(url.port)).toBeGreaterThan(0);
    expect((await fetch(new URL('/favicon.ico', url))).status).toBe(404);
    const answer = await fetch(`${listener.redirectUrl}?code=abc&state=s1&iss=http%3A%2F%2Fas`);
    expect(answer.status).toBe(200);
    await expect(listener.answer).resolves.toEqual({ code: 'abc', iss: 'http://as' });
    await listener.close();
    await expect(fetch(listener.redirectUrl)).rejects.toThrow();
  });

  it('refuses a redirect whose state does not match, and ends the wait', async () => {
    const listener = await listenForRedirect({ state: 'right', timeoutMs: 10_000 });
    const answer = await fetch(`${listener.redirectUrl}?code=abc&state=wrong`);
    expect(answer.status).toBe(400);
    expect(await codeOf(listener.answer)).toBe('unauthorized');
  });

  it('refuses a redirect without state, and one carrying an error', async () => {
    const a = await listenForRedirect({ state: 'x', timeoutMs: 10_000 });
    await fetch(`${a.redirectUrl}?code=abc`);
    expect(await codeOf(a.answer)).toBe('unauthorized');
    const b = await listenForRedirect({ state: 'x', timeoutMs: 10_000 });
    await fetch(`${b.redirectUrl}?error=access_denied&state=x`);
    expect(await codeOf(b.answer)).toBe('unauthorized');
  });

  it('times out, and honours its signal', async () => {
    const a = await listenForRedirect({ state: 'x', timeoutMs: 50 });
    expect(await codeOf(a.answer)).toBe('timeout');
    const controller = new AbortController();
    const b = await listenForRedirect({ state: 'x', signal: controller.signal });
    controller.abort();
    expect(await codeOf(b.answer)).toBe('cancelled');
  });

  it('ends the wait when closed before any answer', async () => {
    const listener = await listenForRedirect({ state: 'x', timeoutMs: 60_000 });
    await listener.close();
    expect(await codeOf(listener.answer)).toBe('cancelled');
  });

  it('refuses a redirect URI that is not loopback', async () => {
    for (const bad of [
      'http://example.com/callback',
      'https://127.0.0.1/callback',
      'http://localhost:8080/callback',
      'http://127.0.0.1.evil.com/cb',
      'http://0.0.0.0:8080/cb',
      'http://127.0.0.1/cb#x',
      'nonsense',
    ]) {
      expect(await codeOf(listenForRedirect({ state: 'x', redirectUrl: bad })), bad).toBe(
        'invalid_config',
      );
    }
    expect(assertLoopbackRedirect('http://[::1]:8080/cb').hostname).toBe('[::1]');
  });
});
