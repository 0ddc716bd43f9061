import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { ServedGateway } from '@toolplane/gateway';
import { ToolError } from '@toolplane/toolkit';
import { parseConfig, type CliConfig, type ConnectorConfig } from '../config.js';
import type { OpenToolkit } from '../open.js';
import { lostGuardsRefusal } from './approval-guards.js';
import { missingCommand } from './command.js';
import { processHangUps, type HangUps } from './hang-ups.js';
import { appliedConfig, changesSomething, planReload, type ReloadPlan } from './plan.js';
import { watchConfigFile } from './watch.js';

/**
 * How long an empty config file is given to fill before it is reported: a save that truncates
 * the file and then writes it can leave it empty for longer than the watch's quiet time when the
 * machine is busy.
 */
const EMPTY_SETTLE_MS = 500;

/** What the reloader says, and to whom; `serve` passes its stderr logger. */
export interface ReloadLog {
  /** A reload applied, with what it changed. */
  readonly info: (text: string) => void;
  /** An edit refused, a key that waits for a restart, a server that cannot start. */
  readonly warn: (text: string) => void;
}

/** Options of {@link startReloader}. */
export interface ReloaderOptions {
  /** The config `serve` started with: the file watched, and the base of the first diff. */
  readonly config: CliConfig;
  readonly opened: OpenToolkit;
  readonly gateway: ServedGateway;
  readonly log: ReloadLog;
  /** Variables for `${NAME}` in the file, as at start. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How long calls in flight on a removed or replaced server may take to finish. */
  readonly drainMs: number;
  /** Quiet time after the last edit before a reload (default `watch.ts`'s). */
  readonly debounceMs?: number;
  /** Reload on `SIGHUP` too (default true). */
  readonly sighup?: boolean;
  /** Where SIGHUP is heard (default: the process's own, while the reloader runs). */
  readonly hangUps?: HangUps;
  /** Told after each edit applied (see {@link Reloader.config} for the config running now). */
  readonly onApplied?: () => void;
}

/** What `/healthz` tells the token holder about the config; see {@link Reloader.details}. */
export interface ReloadDetails {
  readonly file: string;
  /** How many edits have been applied since start. */
  readonly reloads: number;
  /** Why the file on disk is not the config running, while it is not. */
  readonly error?: string;
  /** Changed keys that take effect on restart. */
  readonly restartPending?: readonly string[];
}

/** A running reloader; see {@link startReloader}. */
export interface Reloader {
  /** Reads the file now and applies it (what a save or `SIGHUP` does); resolves when done. */
  reload(options?: { force?: boolean }): Promise<void>;
  /** The state `/healthz` reports to the token holder. */
  details(): ReloadDetails;
  /** The config running now: the last edit applied (restart-only keys as at start). */
  config(): CliConfig;
  /** Stops watching and waits for removed servers to have closed. */
  stop(): Promise<void>;
}

/**
 * Watches `serve`'s config file (and hears `SIGHUP`) and reconciles each edit with what runs:
 * servers added are connected, removed ones closed (their tools leave the lists; calls in flight
 * finish first, up to `drainMs`), changed ones replaced; filters, naming, mode, instructions and
 * the builtins apply from the next request. Sessions stay open and hear `list_changed`.
 *
 * An edit that does not parse or validate (a half-written file too), an emptied file and a
 * missing one keep the running config and are reported once (an empty file only if it is still
 * empty a moment later: a save under way truncates first); the next good edit applies. Keys that
 * cannot change while running are named and take effect on restart. Reloads never overlap:
 * edits made during one are read after it.
 */
export function startReloader(options: ReloaderOptions): Reloader {
  const { opened, gateway, log, env, drainMs } = options;
  const file = options.config.file;
  if (file === undefined) {
    throw new ToolError('invalid_config', 'a config without a file cannot be reloaded');
  }
  const where = basename(file);
  let running = options.config;
  // The text last read, applied or refused: the same text again is not news.
  let lastText: string | undefined;
  let error: string | undefined;
  let restartPending: readonly string[] = [];
  // Whether the reload under way was asked for (SIGHUP): its refusal is said even if said before.
  let repeat = false;
  let reloads = 0;
  const closing = new Set<Promise<unknown>>();
  let busy: Promise<void> | undefined;
  let again: { force: boolean } | undefined;
  let stopped = false;
  const stopping = new AbortController();
  // A function, so that checks inside the loop below are not narrowed away.
  const isStopped = (): boolean => stopped;

  /** The file's text, or undefined once its failure to read is reported. */
  const read = async (): Promise<string | undefined> => {
    try {
      return await readFile(file, 'utf8');
    } catch (cause) {
      // Mid-rename, or deleted: the next event (the file back) reloads, even with the text it
      // had (which clears this error).
      lastText = undefined;
      refuse(`cannot read it (${(cause as Error).message})`, undefined);
      return undefined;
    }
  };

  const apply = async (force: boolean): Promise<void> => {
    // A refusal asked for again (SIGHUP) is said again: the operator waits for an answer.
    repeat = force;
    let text = await read();
    if (text === undefined) return;
    if (text.trim() === '' && text !== lastText) {
      // Truncated by a save that has not written yet, most likely: read it again in a while.
      await delay(EMPTY_SETTLE_MS, undefined, { signal: stopping.signal }).catch(() => undefined);
      if (isStopped()) return;
      text = await read();
      if (text === undefined) return;
    }
    if (!force && text === lastText) return;
    lastText = text;
    if (text.trim() === '') {
      // Truncated by a save under way (or emptied): never a config to drop every server for.
      refuse('it is empty (a save under way?)', text);
      return;
    }
    let next: CliConfig;
    try {
      next = parseConfig(text, { file, env });
    } catch (cause) {
      refuse(ToolError.isInstance(cause) ? cause.message : String(cause), text);
      return;
    }
    const plan = planReload(running, next);
    // An edit that would take tools out from under the running approval policy waits for a restart.
    const unguarded = lostGuardsRefusal(plan, running, opened.toolkit);
    if (unguarded !== undefined) {
      refuse(unguarded, text);
      return;
    }
    error = undefined;
    const notAdded = await reconcile(plan, next);
    running = appliedConfig(running, next, notAdded);
    restartPending = plan.restartOnly;
    reloads++;
    report(plan, notAdded);
    options.onApplied?.();
  };

  const refuse = (why: string, text: string | undefined): void => {
    const message = why.startsWith(where) ? why : `${where}: ${why}`;
    if (text !== undefined) lastText = text;
    if (message === error && !repeat) return;
    error = message;
    repeat = false;
    log.warn(
      `config edit not applied, the running config stays: ${message}; fix it and save again`,
    );
  };

  /** Applies `plan`; resolves with the servers whose add failed. */
  const reconcile = async (plan: ReloadPlan, next: CliConfig): Promise<Set<string>> => {
    const notAdded = new Set<string>();
    const { toolkit } = opened;
    const retire = (namespace: string): void => {
      const done = toolkit.removeConnector(namespace, { drainMs }).catch(() => false);
      closing.add(done);
      void done.finally(() => closing.delete(done));
    };
    for (const namespace of plan.removed) retire(namespace);
    for (const connector of [...plan.changed, ...plan.added]) {
      if (plan.changed.includes(connector)) retire(connector.namespace);
      const missing = missingCommand(connector, env);
      if (missing !== undefined) {
        log.warn(
          `${connector.namespace}: ${missing}; it is retried with backoff, failing, until it is there or the config names another`,
        );
      }
      try {
        await opened.addServer(connector);
      } catch (cause) {
        // Not counted as running: the next reload (a save, or SIGHUP) adds it again.
        notAdded.add(connector.namespace);
        log.warn(
          `${connector.namespace}: not added: ${(cause as Error).message}; SIGHUP (or the next edit of the config) tries again`,
        );
      }
    }
    if (plan.builtins !== undefined) opened.setBuiltins(plan.builtins);
    if (plan.gateway) {
      gateway.reconfigure({
        filter: next.filter,
        mode: next.mode,
        ...next.naming,
        ...(next.instructions === undefined ? {} : { instructions: next.instructions }),
      });
    }
    return notAdded;
  };

  const report = (plan: ReloadPlan, notAdded: ReadonlySet<string>): void => {
    const added = (c: ConnectorConfig): boolean => !notAdded.has(c.namespace);
    // A changed server whose new version failed to start is gone until it is added again.
    const gone = plan.changed.filter((c) => !added(c)).map((c) => c.namespace);
    const parts = [
      ...plan.added.filter(added).map((c) => `+${c.namespace}`),
      ...[...plan.removed, ...gone].map((namespace) => `-${namespace}`),
      ...plan.changed.filter(added).map((c) => `~${c.namespace}`),
      ...(plan.gateway ? ['filters, naming, mode and instructions'] : []),
      ...(plan.builtins === undefined ? [] : [`builtins ${plan.builtins ? 'on' : 'off'}`]),
    ];
    if (parts.length > 0) log.info(`config reloaded from ${where}: ${parts.join(', ')}`);
    // A reload whose only change failed has said so in its warning.
    else if (!changesSomething(plan)) log.info(`config reloaded from ${where}: nothing to change`);
    if (plan.restartOnly.length > 0) {
      log.warn(
        `${plan.restartOnly.join(', ')} changed in ${where}: ${plan.restartOnly.length === 1 ? 'it takes' : 'they take'} effect on restart`,
      );
    }
  };

  const reload = (opts: { force?: boolean } = {}): Promise<void> => {
    const force = opts.force === true;
    if (stopped) return Promise.resolve();
    if (busy !== undefined) {
      again = { force: force || again?.force === true };
      return busy;
    }
    busy = (async () => {
      try {
        let wanted: { force: boolean } | undefined = { force };
        while (wanted !== undefined && !isStopped()) {
          again = undefined;
          await apply(wanted.force);
          wanted = again;
        }
      } finally {
        busy = undefined;
      }
    })();
    return busy;
  };

  const onChange = (): void => {
    void reload().catch((cause: unknown) => {
      log.warn(`config reload failed: ${(cause as Error).message}`);
    });
  };
  const stopWatching = watchConfigFile(file, onChange, {
    ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
    onError: (cause) => {
      log.warn(`no longer watching ${where} (${cause.message}); SIGHUP still reloads it`);
    },
  });
  // SIGHUP asks for a reload even when the text is the same (an environment variable it names
  // may be what changed for the operator).
  const onHangUp = (): void => {
    void reload({ force: true }).catch((cause: unknown) => {
      log.warn(`config reload failed: ${(cause as Error).message}`);
    });
  };
  const stopHangUps =
    options.sighup === false
      ? () => undefined
      : (options.hangUps ?? processHangUps).listen(onHangUp);

  return {
    reload,
    config: () => running,
    details: () => ({
      file: where,
      reloads,
      ...(error === undefined ? {} : { error }),
      ...(restartPending.length === 0 ? {} : { restartPending }),
    }),
    stop: async () => {
      stopped = true;
      stopping.abort();
      stopWatching();
      stopHangUps();
      await busy?.catch(() => undefined);
      await Promise.all(closing);
    },
  };
}
