/**
 * Logs in to the dashboard at `ui` (its `/ui/` address) with `token`, as the login form does
 * (same origin); resolves with the session cookie to send (`name=value`).
 */
export async function loginCookie(ui: URL, token: string): Promise<string> {
  const login = await fetch(new URL('api/login', ui), {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: ui.origin },
    body: JSON.stringify({ token }),
  });
  if (login.status !== 200)
    throw new Error(`the dashboard refused the login: ${String(login.status)}`);
  return (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}
