import { useState } from 'preact/hooks';
import { api, type PinChangeView } from '../api.js';
import { html } from '../html.js';
import { useApi } from './use-api.js';

/** A diff line's class: added, removed, or a hunk header (colour only; the text is the text). */
function lineClass(line: string): string {
  if (line.startsWith('+') && !line.startsWith('+++')) return 'add';
  if (line.startsWith('-') && !line.startsWith('---')) return 'del';
  return line.startsWith('@@') ? 'hunk' : '';
}

/** One pending change: which tool, when seen, which fields, the diff, how to accept it. */
function Change({ change, onAccept }: { change: PinChangeView; onAccept: () => void }) {
  const lines = change.diff.split('\n');
  return html`<article class="change" data-change=${change.id}>
    <h3><code>${change.id}</code></h3>
    <p>
      ${`Seen ${new Date(change.seenAt).toLocaleString()}; changed: `}<span class="fields"
        >${change.fields.join(', ') || 'definition'}</span
      >
    </p>
    <pre class="diff">
${lines.map(
        (line, i) =>
          html`<span class=${lineClass(line)}
            >${i === lines.length - 1 ? line : `${line}\n`}</span
          >`,
      )}</pre>
    <p>
      ${'Accept it with '}<code class="accept-command">${change.accept}</code>
      <button aria-label=${`Accept ${change.id}`} onClick=${onAccept}>Accept</button>
    </p>
  </article>`;
}

/**
 * The tools whose server now offers a definition other than their pin, withheld (`block`) or
 * flagged (`warn`) until accepted, each with the diff `toolplane tools changes` prints.
 */
export function Changes({ version }: { version: number }) {
  const [asked, setAsked] = useState(0);
  const [note, setNote] = useState('');
  const { data, error } = useApi<{ pinning: boolean; total?: number; changes: PinChangeView[] }>(
    'changes',
    [version, asked],
  );
  const accept = async (change: PinChangeView) => {
    try {
      // The definition shown: if the tool changed again since, the server refuses (conflict).
      await api('accept', {
        namespace: change.namespace,
        tool: change.tool,
        fingerprint: change.current,
      });
      setNote(`accepted ${change.id}`);
    } catch (e) {
      setNote(e instanceof Error ? e.message : String(e));
    }
    setAsked((n) => n + 1);
  };
  return html`
    <h2>Changes</h2>
    ${error === undefined ? null : html`<p class="error">${error}</p>`}
    ${note === '' ? null : html`<p class="note" role="status">${note}</p>`}
    ${data?.pinning === false ? html`<p>Pinning is off (set <code>pinning</code> in the config).</p>` : null}
    ${
      data?.pinning === true && data.changes.length === 0
        ? html`<p id="no-changes">No pending changes: every tool matches its pin.</p>`
        : null
    }
    ${
      data !== undefined && data.total !== undefined && data.total > data.changes.length
        ? html`<p class="hint">Showing ${data.changes.length} of ${data.total}.</p>`
        : null
    }
    <div id="changes">
      ${(data?.changes ?? []).map(
        (c) => html`<${Change} key=${c.id} change=${c} onAccept=${() => accept(c)} />`,
      )}
    </div>
  `;
}
