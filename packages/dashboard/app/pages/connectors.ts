import { useState } from 'preact/hooks';
import { api, type Connector } from '../api.js';
import { html } from '../html.js';
import { useApi } from './use-api.js';

/** Every upstream server: its state, last error, and a reconnect button. */
export function Connectors({ version }: { version: number }) {
  const [asked, setAsked] = useState(0);
  const [note, setNote] = useState('');
  const { data, error } = useApi<{ connectors: Connector[] }>('connectors', [version, asked]);
  const reconnect = async (namespace: string) => {
    try {
      await api('reconnect', { namespace });
      setNote(`reconnecting ${namespace}…`);
    } catch (e) {
      setNote(e instanceof Error ? e.message : String(e));
    }
    setAsked((n) => n + 1);
  };
  return html`
    <h2>Connectors</h2>
    ${error === undefined ? null : html`<p class="error">${error}</p>`}
    ${note === '' ? null : html`<p class="note" role="status">${note}</p>`}
    ${
      data?.connectors.length === 0
        ? html`<p>No upstream servers are configured (mcpServers in the config).</p>`
        : null
    }
    <table class="connectors">
      <thead>
        <tr>
          <th>Server</th>
          <th>State</th>
          <th>Era</th>
          <th>Last error</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${(data?.connectors ?? []).map(
          (c) => html`
            <tr data-namespace=${c.namespace}>
              <td>
                <strong>${c.namespace}</strong
                >${c.pid === undefined ? '' : ` (pid ${String(c.pid)})`}
              </td>
              <td><span class=${`state ${c.state}`}>${c.state}</span></td>
              <td>${c.era ?? ''}</td>
              <td class="error-text">${c.error ?? ''}</td>
              <td>
                <button
                  aria-label=${`Reconnect ${c.namespace}`}
                  onClick=${() => reconnect(c.namespace)}
                >
                  Reconnect
                </button>
              </td>
            </tr>
          `,
        )}
      </tbody>
    </table>
  `;
}
