import { useEffect, useState } from 'preact/hooks';
import {
  api,
  ApiError,
  type CallAnswer,
  type CallEntry,
  type CallQuestion,
  type CallStep,
  type ToolDetail,
  type ToolSummary,
} from '../api.js';
import { html } from '../html.js';
import { Content } from './content.js';
import { CallRow } from './log.js';
import { readForm, SchemaFields } from './schema-form.js';
import { useApi } from './use-api.js';

/**
 * The tool catalogue, searched with the gateway's own search, and the try-it form of the tool
 * selected (`#/tools/<id>`). The list reloads on every catalogue change the event stream
 * announces, so a server that comes or changes its tools shows without a page reload.
 */
export function Tools({
  selected,
  version,
  calls,
}: {
  selected: string;
  version: number;
  calls: CallEntry[];
}) {
  const [query, setQuery] = useState('');
  const [typed, setTyped] = useState('');
  // The search runs once typing pauses, not per key.
  useEffect(() => {
    const timer = setTimeout(() => {
      setQuery(typed.trim());
    }, 150);
    return () => {
      clearTimeout(timer);
    };
  }, [typed]);
  const { data, error } = useApi<{ tools: ToolSummary[]; total?: number; more?: boolean }>(
    `tools?q=${encodeURIComponent(query)}`,
    [version],
  );
  const shown = data?.tools.length ?? 0;
  const total = data?.total ?? shown;
  return html`
    <div class="split">
      <section class="catalogue">
        <h2>
          Tools <small id="tool-count">${data === undefined ? '' : total.toLocaleString()}</small>
        </h2>
        <input
          type="search"
          id="tool-search"
          aria-label="Search tools"
          placeholder="Search tools…"
          value=${typed}
          onInput=${(e: Event) => {
            setTyped((e.currentTarget as HTMLInputElement).value);
          }}
        />
        ${error === undefined ? null : html`<p class="error">${error}</p>`}
        ${
          shown < total
            ? html`<p class="hint" id="tools-truncated">
                Showing the first ${shown.toLocaleString()} of ${total.toLocaleString()}: search to
                find the others.
              </p>`
            : data?.more === true
              ? html`<p class="hint" id="tools-truncated">
                  The best ${shown.toLocaleString()} matches: add words to narrow the search.
                </p>`
              : null
        }
        <ul class="tools" data-query=${query}>
          ${(data?.tools ?? []).map(
            (t) =>
              html`<li class=${t.id === selected ? 'active' : ''}>
                <a
                  href=${`#/tools/${encodeURIComponent(t.id)}`}
                  data-tool=${t.id}
                  aria-current=${t.id === selected ? 'page' : undefined}
                  ><code>${t.id}</code></a
                >
                <small>${t.description}</small>
              </li>`,
          )}
        </ul>
      </section>
      <section class="try">
        ${
          selected === ''
            ? html`<p class="hint">Pick a tool to try it.</p>`
            : html`<${TryIt} key=${selected} id=${selected} calls=${calls} />`
        }
      </section>
    </div>
  `;
}

function TryIt({ id, calls }: { id: string; calls: CallEntry[] }) {
  const { data: tool, error } = useApi<ToolDetail>(`tool?id=${encodeURIComponent(id)}`, []);
  const [answer, setAnswer] = useState<CallAnswer | undefined>();
  const [question, setQuestion] = useState<CallQuestion | undefined>();
  const [failure, setFailure] = useState('');
  const [busy, setBusy] = useState(false);
  // The call's next step: its result, or a question for the operator (an approval).
  const step = async (route: string, body: unknown) => {
    setBusy(true);
    setQuestion(undefined);
    try {
      const next = await api<CallStep>(route, body);
      if ('question' in next) setQuestion(next.question);
      else setAnswer(next);
    } catch (e) {
      setFailure(e instanceof ApiError ? `${e.code}: ${e.message}` : String(e));
    } finally {
      setBusy(false);
    }
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    setFailure('');
    setAnswer(undefined);
    let args: Record<string, unknown>;
    try {
      args = readForm(event.currentTarget as HTMLFormElement);
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
      return;
    }
    await step('call', { tool: id, arguments: args });
  };
  const reply = async (asked: CallQuestion, event: Event) => {
    event.preventDefault();
    setFailure('');
    let content: Record<string, unknown>;
    try {
      content = readForm(event.currentTarget as HTMLFormElement);
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
      return;
    }
    // The approval form's own field: an accept without it ticked is no approval.
    if (asked.approval && content.approve !== true) {
      setFailure('Tick "approve" to run the call, or decline it.');
      return;
    }
    await step('answer', { question: asked.id, action: 'accept', content });
  };
  const decline = async (asked: CallQuestion) => {
    setFailure('');
    await step('answer', { question: asked.id, action: 'decline' });
  };
  if (error !== undefined) return html`<p class="error">${error}</p>`;
  if (tool === undefined) return html`<p>Loading ${id}…</p>`;
  const mine = calls.filter((c) => c.tool === id).slice(0, 5);
  return html`
    <h2><code>${tool.id}</code></h2>
    <p>${tool.description}</p>
    <form class="try-form" onSubmit=${submit}>
      <${SchemaFields} schema=${tool.inputSchema} />
      <button type="submit" disabled=${busy}>${busy ? 'Calling…' : 'Call'}</button>
    </form>
    ${
      question === undefined
        ? null
        : html`<section
            class="question"
            id="question"
            aria-label=${question.approval ? 'Approval needed' : 'The call asks you'}
          >
            <h3>${question.approval ? 'Approval needed' : 'The call asks you'}</h3>
            <pre class="question-text">${question.message}</pre>
            <form class="try-form" onSubmit=${(event: Event) => reply(question, event)}>
              <${SchemaFields} schema=${question.requestedSchema} />
              <div class="buttons">
                <button type="submit" disabled=${busy}>
                  ${question.approval ? 'Approve' : 'Accept'}
                </button>
                <button type="button" disabled=${busy} onClick=${() => decline(question)}>
                  Decline
                </button>
              </div>
            </form>
          </section>`
    }
    ${failure === '' ? null : html`<p class="error" role="alert">${failure}</p>`}
    ${
      answer === undefined
        ? null
        : html`<div class=${answer.isError ? 'result is-error' : 'result'} id="result">
            <h3>${answer.isError ? 'The tool reported an error' : 'Result'}</h3>
            <${Content} blocks=${answer.content} />
          </div>`
    }
    ${
      mine.length === 0
        ? null
        : html`<h3>Recent calls</h3>
            <table class="calls">
              <tbody>
                ${mine.map((c) => html`<${CallRow} call=${c} />`)}
              </tbody>
            </table>`
    }
  `;
}
