import type { CallEntry } from '../api.js';
import { html } from '../html.js';

const HANDED_ON_HINT =
  "The call asked its client (an approval question); the client's retry runs it again, on this instance or another, and is logged there with its own outcome.";

/** One call: when, which tool, how it went, how long, its progress while it runs. */
export function CallRow({ call }: { call: CallEntry }) {
  const running = call.outcome === undefined;
  const state = call.waiting === 'approval' ? 'waiting for approval' : 'running';
  // Asked its client, whose retry runs the call again (here or on another instance): not failed.
  const handedOn = call.outcome === 'input_required';
  const kind = running
    ? 'running'
    : call.outcome === 'ok'
      ? 'ok'
      : handedOn
        ? 'handed-on'
        : 'failed';
  const shown = running ? state : handedOn ? 'input required: handed to the retry' : call.outcome;
  const p = call.progress;
  return html`<tr class=${`call ${kind}`} data-call=${call.id} data-outcome=${call.outcome}>
    <td>${new Date(call.startedAt).toLocaleTimeString()}</td>
    <td><code>${call.tool}</code></td>
    <td class="outcome" title=${handedOn ? HANDED_ON_HINT : undefined}>${shown}</td>
    <td>${call.durationMs === undefined ? '' : `${String(call.durationMs)} ms`}</td>
    <td>
      ${
        p === undefined
          ? ''
          : html`<progress max=${p.total ?? 0} value=${p.progress}></progress>
              <small
                >${p.progress}${p.total === undefined ? '' : `/${String(p.total)}`}
                ${p.message ?? ''}</small
              >`
      }
    </td>
  </tr>`;
}

/** Every call the gateway served, newest first, as the event stream tells them. */
export function CallLog({ calls }: { calls: CallEntry[] }) {
  return html`
    <h2>Live log</h2>
    <p class="hint">
      Calls appear as they start (those waiting for a person's approval say so); progress and
      outcome update in place. "input required" is a call that asked its client a question: the
      client's retry runs it again, and is logged with its own outcome where it runs.
    </p>
    <table class="calls" id="call-log">
      <thead>
        <tr>
          <th>Time</th>
          <th>Tool</th>
          <th>Outcome</th>
          <th>Duration</th>
          <th>Progress</th>
        </tr>
      </thead>
      <tbody>
        ${calls.map((c) => html`<${CallRow} key=${c.id} call=${c} />`)}
      </tbody>
    </table>
    ${calls.length === 0 ? html`<p>No calls yet.</p>` : null}
  `;
}
