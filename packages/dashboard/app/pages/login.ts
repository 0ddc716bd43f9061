import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { html } from '../html.js';

/** The login form: the token is sent once and kept by the browser as an HttpOnly cookie. */
export function Login({ onLogin }: { onLogin: () => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const token = (form.elements.namedItem('token') as HTMLInputElement).value;
    setBusy(true);
    setError('');
    try {
      await api('login', { token });
      onLogin();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return html`
    <form class="login" onSubmit=${submit}>
      <h1>toolplane</h1>
      <label>
        Gateway token
        <input name="token" type="password" autocomplete="current-password" required autofocus />
      </label>
      <button type="submit" disabled=${busy}>Log in</button>
      ${error === '' ? null : html`<p class="error" role="alert">${error}</p>`}
      <p class="hint">
        The token <code>toolplane serve</code> was started with (or an OAuth access token). It is
        sent once; the browser keeps a signed session cookie, never the token.
      </p>
    </form>
  `;
}
