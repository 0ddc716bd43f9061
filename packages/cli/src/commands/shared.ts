import {
  showControls,
  ToolError,
  type ConnectorListKind,
  type StdioPrestarts,
  type ToolkitItem,
} from '@toolplane/toolkit';
import { DEFAULT_SEPARATOR } from '@toolplane/toolmodel';
import { isAllowed, type CliConfig } from '../config.js';
import { checkUnmatched } from '../filter-report.js';
import { openStore, openToolkit, type OpenToolkit } from '../open.js';
import { readOnlyNotice } from '../read-only-store.js';
import { storeFamily } from '../stores/store-family.js';
import { toolkitLogger } from '../toolkit-log.js';
import { integerFlag } from './integer-flag.js';
import { readNamedFile } from './named-file.js';
import { startProgress } from '../start-progress.js';
import type { Output } from '../output.js';
import type { HeldHangUps } from '../reload/hang-ups.js';

/** What every command gets: where to write, where it runs, how to stop, and its config. */
export interface CommandContext {
  readonly output: Output;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted by Ctrl-C / SIGTERM: servers are closed and children ended. */
  readonly signal: AbortSignal;
  /** How to start this CLI again, for the `mcpServers` snippet `serve` prints. */
  readonly self: readonly string[];
  /** Loads the config named by `--config` (or found in the working directory). */
  readonly config: () => Promise<CliConfig>;
  /** Says how long the command may take to stop cleanly once {@link signal} aborts. */
  readonly stopTime: (ms: number) => void;
  /** Sets the exit code the command ends with. */
  readonly setCode: (code: number) => void;
  /** All of standard input, as text; a second call is refused (it has been read). */
  readonly readStdin: () => Promise<string>;
  /**
   * The config's stdio servers, started before the command's modules loaded (see
   * `prestart.ts`): the connectors adopt them; the CLI disposes of the rest once it is done.
   */
  readonly prestarted?: StdioPrestarts | undefined;
  /** SIGHUP held since the process started (`serve`'s; see `reload/hang-ups.ts`). */
  readonly hangUps?: HeldHangUps | undefined;
}

/**
 * Reads the values of `key=@-` (standard input) and `key=@path` (a file, relative to the working
 * directory) words, as curl does; `key=@@text` is the literal `@text`.
 *
 * @throws {ToolError} `invalid_argument` for a file that cannot be read or `@-` given twice.
 */
export async function readValues(
  context: CommandContext,
  pairs: readonly string[],
): Promise<string[]> {
  const read: string[] = [];
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const value = at <= 0 ? '' : pair.slice(at + 1);
    if (!value.startsWith('@')) {
      read.push(pair);
      continue;
    }
    const key = pair.slice(0, at);
    if (value.startsWith('@@')) {
      read.push(`${key}=${value.slice(1)}`);
    } else if (value === '@-') {
      read.push(`${key}=${await context.readStdin()}`);
    } else {
      const text = await readNamedFile(
        context,
        value.slice(1),
        `${key}=${value}, the file`,
        ` (write ${key}=@${value} for a literal ${value})`,
      );
      read.push(`${key}=${text}`);
    }
  }
  return read;
}

/** Opens the toolkit (starting the connectors it needs), runs `work`, and always closes it. */
export async function withToolkit(
  context: CommandContext,
  cfg: CliConfig,
  options: {
    only?: string;
    quiet?: boolean;
    search?: boolean;
    validator?: 'compiled' | 'default';
    /** The servers' lists the command reads (default all, see `OpenToolkitOptions.lists`). */
    lists?: readonly ConnectorListKind[];
  },
  work: (opened: OpenToolkit, cfg: CliConfig) => Promise<void> | void,
): Promise<void> {
  const { output } = context;
  const only = options.only;
  // The config's "tools" filters are checked against each server's tools (below, unless quiet):
  // a command that reads other lists asks for the tools too when there are filters to check.
  const checksFilters = options.quiet !== true && Object.keys(cfg.filter).length > 0;
  const lists =
    options.lists === undefined || options.lists.includes('tools') || !checksFilters
      ? options.lists
      : [...options.lists, 'tools' as const];
  const needed =
    only !== undefined && cfg.connectors.some((c) => c.namespace === only) ? [only] : 'all';
  const spinner = output.spinner('starting the MCP servers');
  const progress = startProgress(cfg, (line) => {
    output.say(output.errColor.dim(line));
  });
  // A store this user may not write: said once, as a warning, if a write (a pin) is refused.
  const readOnly = readOnlyNotice(
    (message) => {
      output.say(`${output.errColor.yellow('warning')} ${message}`);
    },
    { atOpen: false },
  );
  let opened: OpenToolkit;
  try {
    opened = await openToolkit(cfg, {
      connectors: needed,
      // A one-shot command: other processes' changes cannot matter for its few seconds.
      listen: false,
      signal: context.signal,
      env: context.env,
      ...(options.search === true
        ? {
            search: true,
            onSearchError: (error: ToolError) => {
              if (readOnly.refused(error.message)) return;
              output.say(`${output.errColor.yellow('warning')} search: ${error.message}`);
            },
          }
        : {}),
      ...(options.validator === undefined ? {} : { validator: options.validator }),
      ...(lists === undefined ? {} : { lists }),
      onEvent: progress.onEvent,
      onReadOnly: readOnly.opened,
      // A refresh whose tokens the store refused: the command goes on with them in memory.
      onUnsavedCredentials: (error) => {
        if (readOnly.refused(error.message)) return;
        output.say(
          `${output.errColor.yellow('warning')} OAuth tokens not saved: ${showControls(error.message)}`,
        );
      },
      logger: toolkitLogger((level, line, fields) => {
        if (readOnly.refused(fields.error)) return;
        const word =
          level === 'error' ? output.errColor.red('error') : output.errColor.yellow('warning');
        output.say(`${word} ${showControls(line)}`);
      }),
      ...(context.prestarted === undefined ? {} : { prestarted: context.prestarted }),
      // The answer is what the user waits for, not the servers' exit.
      closing: 'release',
    });
    if (options.search === true) await opened.warmSearch({ signal: context.signal });
  } finally {
    // Every first attempt is over: a child nobody adopted is not going to be.
    context.prestarted?.dispose();
    progress.stop();
    spinner.stop();
  }
  try {
    if (options.quiet !== true) {
      for (const status of opened.toolkit.connectors()) {
        if (status.state !== 'connected') {
          output.say(
            `${output.errColor.yellow('warning')} ${status.namespace} ${stateWords(status.state)}: ${status.error ?? 'not connected'}`,
          );
        }
      }
      // Approval patterns are checked against the servers' tools, when the command listed them.
      const approval = lists === undefined || lists.includes('tools');
      for (const message of await checkUnmatched(cfg, opened.toolkit, { approval })) {
        output.say(`${output.errColor.yellow('warning')} ${message}`);
      }
    }
    await work(opened, cfg);
  } finally {
    await opened.close();
  }
}

export async function withStore<T>(
  cfg: CliConfig,
  work: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>,
): Promise<T> {
  // A one-shot command: it listens for no other process's changes.
  const store = await storeFamily(cfg.store).userStore({ listen: false });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

export type ToolItem = Extract<ToolkitItem, { type: 'tool' }>;

export async function findTool(
  toolkit: OpenToolkit['toolkit'],
  cfg: CliConfig,
  key: string,
  signal: AbortSignal,
): Promise<ToolItem> {
  const item = await lookup(toolkit, key, signal, cfg.naming.separator);
  if (item.type !== 'tool') {
    throw new ToolError(
      'not_found',
      `"${key}" is a ${item.type}, not a tool; see toolplane tools list`,
    );
  }
  if (!isAllowed(cfg.filter[item.namespace], item.tool)) {
    throw new ToolError(
      'not_found',
      `tool "${item.id}" is filtered out by the "tools" filter of ${item.namespace} in the config`,
    );
  }
  if (key === item.name) await refuseAmbiguous(toolkit, cfg, item, signal);
  return item;
}

/**
 * Refuses a bare tool name that more than one server has: which one runs must not depend on
 * the order of the config's servers.
 *
 * @throws {ToolError} `invalid_argument` naming each `ns:name` it could be.
 */
async function refuseAmbiguous(
  toolkit: OpenToolkit['toolkit'],
  cfg: CliConfig,
  item: ToolItem,
  signal: AbortSignal,
): Promise<void> {
  const { tools } = await toolkit.list({ type: 'tool', signal });
  const same = tools.filter(
    (other) => other.name === item.name && isAllowed(cfg.filter[other.namespace], other.tool),
  );
  if (same.length < 2) return;
  throw new ToolError(
    'invalid_argument',
    `"${item.name}" is a tool of ${String(same.length)} servers; name the one to run: ${same.map((other) => other.id).join(', ')}`,
  );
}

/**
 * `toolkit.lookup`, except that a name in the namespace of a server that is not connected (it
 * could not start, or failed) is that server's fault, not a missing name.
 *
 * @throws {ToolError} `connector_unavailable` naming the server and why; `not_found`.
 */
export async function lookup(
  toolkit: OpenToolkit['toolkit'],
  key: string,
  signal: AbortSignal,
  separator: string = DEFAULT_SEPARATOR,
): Promise<ToolkitItem> {
  try {
    return await toolkit.lookup(key, { signal });
  } catch (error) {
    // The name MCP clients see (`builtin__time_now`, as the banner and the Inspector print it).
    const id = fromExposedName(toolkit, key, separator);
    if (id !== undefined && ToolError.isInstance(error) && error.code === 'not_found') {
      const found = await toolkit.lookup(id, { signal }).catch(() => undefined);
      if (found !== undefined) return found;
    }
    throw unavailableInstead(toolkit, key, error);
  }
}

/**
 * `ns:name` for a name as the gateway exposes it (`ns__name`, or the config's `naming.separator`),
 * when `ns` is one of the toolkit's namespaces; `undefined` for any other key.
 */
export function fromExposedName(
  toolkit: OpenToolkit['toolkit'],
  key: string,
  separator: string = DEFAULT_SEPARATOR,
): string | undefined {
  const at = key.indexOf(separator);
  if (at <= 0) return undefined;
  const namespace = key.slice(0, at);
  const known =
    namespace === 'builtin' ||
    namespace === 'user' ||
    toolkit.connectors().some((status) => status.namespace === namespace);
  return known ? `${namespace}:${key.slice(at + separator.length)}` : undefined;
}

/** The error to report for a failed lookup of `key`: {@link lookup}'s rule. */
export function unavailableInstead(
  toolkit: OpenToolkit['toolkit'],
  key: string,
  error: unknown,
): unknown {
  if (!ToolError.isInstance(error) || error.code !== 'not_found') return error;
  const hash = key.lastIndexOf('#');
  // `uri#ns` names its namespace after the URI; `ns:name` before the name.
  const namespace = hash < 0 ? namespaceOf(key) : key.slice(hash + 1);
  const status = toolkit.connectors().find((s) => s.namespace === namespace);
  if (status === undefined || status.state === 'connected') return error;
  return new ToolError(
    'connector_unavailable',
    `server "${status.namespace}" ${stateWords(status.state)}${status.error === undefined ? '' : `: ${status.error}`}; see toolplane connectors status`,
    { cause: error },
  );
}

/** A connector state as words after a server's name: `could not connect`, `is connecting`. */
export function stateWords(state: string): string {
  return state === 'failed' ? 'could not connect' : `is ${state}`;
}

export function namespaceOf(key: string): string | undefined {
  const match = /^([A-Za-z0-9_-]{1,64})[:.]/.exec(key);
  return match?.[1];
}

/** A result for people: a string as it is, anything else as indented JSON ({@link Output.result}). */
export function printValue(output: Output, value: unknown): void {
  if (value === undefined) return;
  output.result(typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

export function progressText(
  id: string,
  event: { progress: number; total?: number; message?: string },
): string {
  const share =
    event.total === undefined || event.total <= 0
      ? `${event.progress}`
      : `${bar(event.progress / event.total)} ${Math.round((event.progress / event.total) * 100)}%`;
  return `${id} ${share}${event.message === undefined ? '' : ` ${event.message}`}`;
}

export function bar(fraction: number, width = 20): string {
  const filled = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

/**
 * Warns of a list's per-server errors, except for servers {@link withToolkit} has warned of
 * already (not connected): one warning per missing server, not one per step.
 */
export function warnErrors(
  output: Output,
  errors: readonly { namespace: string; message: string }[],
  toolkit: OpenToolkit['toolkit'],
): void {
  if (output.json) return;
  const down = new Set(
    toolkit
      .connectors()
      .filter((status) => status.state !== 'connected')
      .map((status) => status.namespace),
  );
  for (const error of errors) {
    if (down.has(error.namespace)) continue;
    output.say(
      `${output.errColor.yellow('warning')} ${error.namespace}: ${showControls(error.message)}`,
    );
  }
}

/**
 * The first line of a description for a table cell, its control characters shown as escapes: an
 * upstream's text never moves the cursor or recolours the operator's terminal.
 */
export function firstLine(text: string | undefined): string {
  return showControls((text ?? '').trim().split('\n')[0] ?? '');
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** `--limit`: how many results, 1 to 100. */
export const parseCount = integerFlag('--limit', 1, 100);
