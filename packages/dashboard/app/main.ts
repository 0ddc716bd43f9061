import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, type CallEntry } from './api.js';
import { html } from './html.js';
import { Changes } from './pages/changes.js';
import { Charts } from './pages/charts.js';
import { Connectors } from './pages/connectors.js';
import { Login } from './pages/login.js';
import { CallLog } from './pages/log.js';
import { Prompts, Resources } from './pages/catalogues.js';
import { Tools } from './pages/tools.js';
import './style.css';

const PAGES = [
  ['connectors', 'Connectors'],
  ['tools', 'Tools'],
  ['prompts', 'Prompts'],
  ['resources', 'Resources'],
  ['log', 'Live log'],
  ['charts', 'Charts'],
  ['changes', 'Changes'],
] as const;
type Page = (typeof PAGES)[number][0];
const KEPT_CALLS = 200;

/**
 * The page the address names (`#/tools`, `#/tools/<id>`), and what follows it. An address that
 * is not valid percent-encoding (a link cut short, typed or sent) is taken as it is written.
 */
function route(): { page: Page; arg: string } {
  let hash = location.hash;
  try {
    hash = decodeURIComponent(hash);
  } catch {
    // The page it names still opens; a tool part that names no tool says so there.
  }
  const [, page = '', ...rest] = hash.split('/');
  const known = PAGES.find(([p]) => p === page);
  return { page: known?.[0] ?? 'connectors', arg: rest.join('/') };
}

/** Live data from the event stream: the calls, and counters that rise on each change. */
interface Live {
  calls: CallEntry[];
  toolsVersion: number;
  /** Rises when the tools, prompts or resources change. */
  listsVersion: number;
  connectorsVersion: number;
  /** Rises when a pin or pending change is written. */
  pinsVersion: number;
  connected: boolean;
}

function useLive(enabled: boolean): Live {
  const [live, setLive] = useState<Live>({
    calls: [],
    toolsVersion: 0,
    listsVersion: 0,
    connectorsVersion: 0,
    pinsVersion: 0,
    connected: false,
  });
  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    void api<{ calls: CallEntry[] }>('calls').then(({ calls }) => {
      if (!stopped) setLive((l) => ({ ...l, calls: merge(calls, l.calls) }));
    });
    const source = new EventSource('api/events');
    source.addEventListener('open', () => {
      setLive((l) => ({ ...l, connected: true }));
    });
    source.addEventListener('error', () => {
      setLive((l) => ({ ...l, connected: false }));
    });
    source.addEventListener('call', (e) => {
      const { call } = JSON.parse((e as MessageEvent<string>).data) as { call: CallEntry };
      setLive((l) => ({ ...l, calls: merge([call], l.calls) }));
    });
    source.addEventListener('tools', () => {
      setLive((l) => ({
        ...l,
        toolsVersion: l.toolsVersion + 1,
        listsVersion: l.listsVersion + 1,
      }));
    });
    source.addEventListener('lists', () => {
      setLive((l) => ({ ...l, listsVersion: l.listsVersion + 1 }));
    });
    source.addEventListener('pins', () => {
      setLive((l) => ({ ...l, pinsVersion: l.pinsVersion + 1 }));
    });
    source.addEventListener('connector', () => {
      setLive((l) => ({ ...l, connectorsVersion: l.connectorsVersion + 1 }));
    });
    return () => {
      stopped = true;
      source.close();
    };
  }, [enabled]);
  return live;
}

/** `fresh` entries replace those of the same id in `kept`; newest first, bounded. */
function merge(fresh: CallEntry[], kept: CallEntry[]): CallEntry[] {
  const byId = new Map(kept.map((c) => [c.id, c]));
  for (const c of fresh) byId.set(c.id, c);
  return [...byId.values()].sort((a, b) => b.id - a.id).slice(0, KEPT_CALLS);
}

function App() {
  const [auth, setAuth] = useState<{ authenticated: boolean; open: boolean } | undefined>();
  const [where, setWhere] = useState(route);
  const live = useLive(auth?.authenticated === true);
  const check = () => {
    void api<{ authenticated: boolean; open: boolean }>('session').then(setAuth);
  };
  useEffect(check, []);
  useEffect(() => {
    const onHash = () => {
      setWhere(route());
    };
    addEventListener('hashchange', onHash);
    return () => {
      removeEventListener('hashchange', onHash);
    };
  }, []);
  if (auth === undefined) return html`<p class="boot">Loading…</p>`;
  if (!auth.authenticated) return html`<${Login} onLogin=${check} />`;
  const logout = async () => {
    await api('logout', {});
    check();
  };
  return html`
    <header>
      <h1>toolplane</h1>
      <nav>
        ${PAGES.map(
          ([page, label]) =>
            html`<a
              href=${`#/${page}`}
              class=${where.page === page ? 'active' : ''}
              aria-current=${where.page === page ? 'page' : undefined}
              >${label}</a
            >`,
        )}
      </nav>
      <span class=${live.connected ? 'live on' : 'live'} title="live updates">
        ${live.connected ? 'live' : 'offline'}
      </span>
      ${auth.open ? null : html`<button class="link" onClick=${logout}>Log out</button>`}
    </header>
    <main id="page" data-page=${where.page}>
      ${where.page === 'connectors' && html`<${Connectors} version=${live.connectorsVersion} />`}
      ${
        where.page === 'tools' &&
        html`<${Tools} selected=${where.arg} version=${live.toolsVersion} calls=${live.calls} />`
      }
      ${where.page === 'prompts' && html`<${Prompts} version=${live.listsVersion} />`}
      ${where.page === 'resources' && html`<${Resources} version=${live.listsVersion} />`}
      ${where.page === 'log' && html`<${CallLog} calls=${live.calls} />`}
      ${where.page === 'charts' && html`<${Charts} calls=${live.calls} />`}
      ${where.page === 'changes' && html`<${Changes} version=${live.pinsVersion} />`}
    </main>
  `;
}

const root = document.getElementById('root');
if (root !== null) {
  root.textContent = '';
  render(html`<${App} />`, root);
}
