import type { CliConfig, ConnectorConfig } from '../config.js';

/** What a config edit changes in a running `serve`; see {@link planReload}. */
export interface ReloadPlan {
  /** Servers only the new config has: connected. */
  readonly added: readonly ConnectorConfig[];
  /** Namespaces of servers only the running config has: closed. */
  readonly removed: readonly string[];
  /** Servers whose command, URL, environment, connection, era or auth changed: replaced. */
  readonly changed: readonly ConnectorConfig[];
  /** Whether the filters, naming, mode or instructions changed (applied to the next request). */
  readonly gateway: boolean;
  /** The new `builtins` value, when it changed. */
  readonly builtins?: boolean;
  /**
   * Keys that changed but cannot change while running (the HTTP listener, the store, auth, …):
   * they take effect on restart.
   */
  readonly restartOnly: readonly string[];
}

/**
 * The keys a running `serve` cannot take anew (as the file names them) with the property of the
 * config that holds each: the listener is bound, the store open, the toolkit's defaults given to
 * every connector already, pinning's gate, approval's rules and code mode's sandboxes built, the log
 * and the tracer set up, the start-up wait over.
 */
const RESTART_ONLY: readonly (readonly [key: string, property: keyof CliConfig])[] = [
  ['store', 'store'],
  ['auth', 'auth'],
  ['prompts', 'promptsDir'],
  ['builtinWorkers', 'builtinWorkers'],
  ['sessionConnections', 'sessionConnections'],
  ['pingIntervalMs', 'pingIntervalMs'],
  ['pinning', 'pinning'],
  ['approval', 'approval'],
  ['search', 'search'],
  ['log', 'log'],
  ['telemetry', 'telemetry'],
  ['waitMs', 'waitMs'],
  ['strict', 'strict'],
  ['codeMode', 'codeMode'],
];

/**
 * Compares the running config with an edited one: which servers to add, close or replace, and
 * which keys wait for a restart. Servers are matched by namespace.
 */
export function planReload(running: CliConfig, next: CliConfig): ReloadPlan {
  const before = new Map(running.connectors.map((c) => [c.namespace, c]));
  const after = new Map(next.connectors.map((c) => [c.namespace, c]));
  const added = next.connectors.filter((c) => !before.has(c.namespace));
  const removed = running.connectors.filter((c) => !after.has(c.namespace)).map((c) => c.namespace);
  const changed = next.connectors.filter((c) => {
    const old = before.get(c.namespace);
    return old !== undefined && serverKey(old) !== serverKey(c);
  });
  const gateway =
    !same(running.filter, next.filter) ||
    running.mode !== next.mode ||
    !same(running.naming, next.naming) ||
    running.instructions !== next.instructions;
  const restartOnly = RESTART_ONLY.flatMap(([key, property]) =>
    same(running[property], next[property]) ? [] : [key],
  );
  for (const key of new Set([...Object.keys(running.http), ...Object.keys(next.http)])) {
    const of = (c: CliConfig): unknown => (c.http as Record<string, unknown>)[key];
    if (!same(of(running), of(next))) restartOnly.push(`http.${key}`);
  }
  return {
    added,
    removed,
    changed,
    gateway,
    ...(running.builtins === next.builtins ? {} : { builtins: next.builtins }),
    restartOnly,
  };
}

/**
 * The config that runs once `next` is applied: `next`, but with the running values of the keys
 * that wait for a restart, so the next diff still names them, and without the servers in
 * `notAdded` (their add failed: the next reload adds them again).
 */
export function appliedConfig(
  running: CliConfig,
  next: CliConfig,
  notAdded: ReadonlySet<string> = new Set(),
): CliConfig {
  const waiting = new Set<string>(RESTART_ONLY.map(([, property]) => property));
  // Optional keys (`auth`, `approval`, `builtinWorkers`) stay absent when they were.
  const kept = RESTART_ONLY.flatMap(([, property]) =>
    running[property] === undefined ? [] : [[property, running[property]] as const],
  );
  const applied = {
    ...Object.fromEntries(Object.entries(next).filter(([key]) => !waiting.has(key))),
    ...Object.fromEntries(kept),
    http: running.http,
  } as CliConfig;
  if (notAdded.size === 0) return applied;
  return { ...applied, connectors: next.connectors.filter((c) => !notAdded.has(c.namespace)) };
}

/** Whether a plan changes anything that runs (restart-only keys aside). */
export function changesSomething(plan: ReloadPlan): boolean {
  return (
    plan.added.length > 0 ||
    plan.removed.length > 0 ||
    plan.changed.length > 0 ||
    plan.gateway ||
    plan.builtins !== undefined
  );
}

/** What makes two servers the same server: everything but how it is shown. */
function serverKey(c: ConnectorConfig): string {
  return JSON.stringify([c.transport, c.source, c.connection, c.era, c.auth ?? null]);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
