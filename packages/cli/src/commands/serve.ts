import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import {
  combineObservers,
  serveHttp,
  serveStdio,
  type GatewayOptions,
  type ServedGateway,
} from '@toolplane/gateway';
import { createCallFeed, type DashboardRoutes } from '@toolplane/dashboard';
import { showControls, ToolError, type ToolkitEvent } from '@toolplane/toolkit';
import { Option } from 'commander';
import type { CliConfig } from '../config.js';
import { approvalProblems, filterProblems, refuseUnmatchedAtStart } from '../filter-report.js';
import { openToolkit, type OpenToolkit } from '../open.js';
import { readOnlyNotice } from '../read-only-store.js';
import { startProgress } from '../start-progress.js';
import { checkIssuer, printAuthHelp, resourceServerFor } from './serve-auth.js';
import { printHttpHelp, printStdioHelp, TOKEN_VARIABLE } from './serve-help.js';
import { mountDashboard } from './serve-dashboard.js';
import { readNamedFile } from './named-file.js';
import { waitForServers } from './serve-wait.js';
import { toolkitLogger } from '../toolkit-log.js';
import type { CommandContext } from './shared.js';
import type { Reloader } from '../reload/reloader.js';
import { holdHangUps, type HangUps } from '../reload/hang-ups.js';
import { VERSION } from '../version.js';
import { observeServe, parseLogFormat } from '../observe/serve-observe.js';
import {
  DEFAULT_DRAIN_MS,
  instanceIdFor,
  requestStateKeyFor,
  requestStateSpenderFor,
  storeReadiness,
} from '../fleet.js';

/** The shortest bearer token `serve` accepts, from the config, a flag, a file or the env. */
const MIN_TOKEN_LENGTH = 16;

/** `toolplane serve [--stdio | --http …]`: the gateway's options and action on `serve`. */
export function registerServe(serveCommand: Command, context: CommandContext): void {
  const { config, setCode } = context;
  serveCommand
    .addOption(new Option('--stdio', 'serve MCP over stdin/stdout').conflicts('http'))
    .option('--http', 'serve MCP over Streamable HTTP')
    .option('--host <host>', 'HTTP host (default 127.0.0.1)')
    .option('--port <port>', 'HTTP port (0 picks a free one)', parsePort)
    .addOption(
      new Option(
        '--token <token>',
        `require Authorization: Bearer <token> over HTTP (16+ characters); prefer ${TOKEN_VARIABLE} or --token-file, since a flag shows in ps`,
      ).conflicts('tokenFile'),
    )
    .option(
      '--token-file <file>',
      `read the bearer token from a file (first line); ${TOKEN_VARIABLE} in the environment also works`,
    )
    .option(
      '--log-format <format>',
      'text (default) or json: one JSON object per line, with an audit line per tool call',
      parseLogFormat,
    )
    .option(
      '--wait-ms <ms>',
      'how long to wait for every server to connect before serving (default: waitMs in the config, else 15000)',
      parseWaitMs,
    )
    .action(async (options: ServeOptions) => {
      // Stopped before it started (a signal while the CLI loaded): nothing to serve, and the
      // servers started early are ended as the command returns.
      if (context.signal.aborted) return;
      // From here to the end, SIGHUP reloads the config (once it is watched) and never ends
      // the gateway: not while its servers start, not while it drains.
      const hangUps = context.hangUps ?? holdHangUps();
      try {
        setCode(await serve(context, await config(), options, hangUps));
      } finally {
        hangUps.release();
      }
    });
}

interface ServeOptions {
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: number;
  token?: string;
  tokenFile?: string;
  waitMs?: number;
  logFormat?: 'text' | 'json';
}

async function serve(
  context: CommandContext,
  cfg: CliConfig,
  options: ServeOptions,
  hangUps: HangUps,
): Promise<number> {
  const { output } = context;
  const http = options.http === true;
  const token = http ? await resolveToken(context, cfg, options) : undefined;
  const auth = http ? await resourceServerFor(cfg, token) : undefined; // OAuth (serve-auth.ts)
  const c = output.errColor;
  const instanceId = http ? instanceIdFor(context.env, cfg.http.instanceId) : undefined;
  const drainMs = cfg.http.drainMs ?? DEFAULT_DRAIN_MS;
  const requestStateKey = http ? requestStateKeyFor(context.env) : undefined;
  // Log lines (each naming the instance, text or JSON), metrics and traces (observe/).
  const observed = await observeServe({
    output,
    cfg,
    http,
    logFormat: options.logFormat,
    instanceId,
  });
  const log = (text: string, fields?: Record<string, unknown>): void => {
    observed.log.info(text, fields);
  };
  // What an operator must act on is a warning: written under `log.level: warn`, at level `warn`
  // in a JSON line (whose level makes the word `warning` needless there).
  const warn = (text: string, word = 'warning', fields?: Record<string, unknown>): void => {
    const colour = word === 'error' ? c.red : c.yellow;
    observed.log.warn(
      observed.log.json && word === 'warning' ? text : `${colour(word)} ${text}`,
      fields,
    );
  };
  const live: { opened?: OpenToolkit } = {};
  // The dashboard's live log and charts see every client's calls through this observer, those
  // approval holds or refuses included.
  const feed = http ? createCallFeed() : undefined;
  const progress = startProgress(cfg, (line) => {
    log(c.dim(line));
  });
  const onEvent = (event: ToolkitEvent): void => {
    progress.onEvent(event);
    if (event.type !== 'state_change') return;
    // A server that cannot be reached or wants a login is a warning; the rest is news.
    const warning = event.state === 'failed' || event.state === 'auth_required';
    const say = (text: string, fields?: Record<string, unknown>): void => {
      if (warning) observed.log.warn(text, fields);
      else observed.log.info(text, fields);
    };
    if (observed.log.json) {
      say(`${event.namespace} ${event.state}`, {
        connector: event.namespace,
        state: event.state,
        ...(event.error === undefined ? {} : { error: event.error.message }),
      });
      return;
    }
    const colour =
      event.state === 'connected' ? c.green : event.state === 'connecting' ? c.dim : c.red;
    const pid = live.opened?.toolkit.connector(event.namespace)?.pid;
    const detail =
      event.error !== undefined
        ? ` ${showControls(event.error.message)}`
        : event.state === 'connected' && pid !== undefined
          ? c.dim(` (pid ${pid})`)
          : '';
    say(`${c.cyan(event.namespace)} ${colour(event.state)}${detail}`);
    if (event.state === 'connected') reportUnmatched(event.namespace);
  };
  // Filter entries and approval patterns that match no tool, with the config running now (edits
  // included; approval's as at start, as it changes on restart), once each: a server that
  // reconnects offers the same tools.
  const reportUnmatched = (namespace?: string): void => {
    if (live.opened === undefined) return;
    const running = reloader?.config() ?? cfg;
    const once = (message: string): void => {
      if (reported.has(message)) return;
      reported.add(message);
      warn(message);
    };
    approvalProblems(running, live.opened.toolkit).forEach(once);
    void filterProblems(running, live.opened.toolkit, namespace).then((problems) => {
      for (const problem of problems) once(problem.message);
    });
  };
  // A failing embeddings endpoint or search store is said once per distinct message: search
  // goes on (lexical, or without what was learned) and the log is not flooded.
  const searchProblems = new Set<string>();
  // A read-only store is said once as it opens; its refusals of pins and learning are not news.
  const readOnly = readOnlyNotice(
    (message) => {
      warn(
        `${message} (serving what it holds; pins, learning and refreshed OAuth tokens not saved)`,
        'store',
      );
    },
    { atOpen: true },
  );
  const onSearchError = (error: ToolError): void => {
    if (readOnly.refused(error.message)) return;
    if (searchProblems.has(error.message) || searchProblems.size > 20) return;
    searchProblems.add(error.message);
    warn(error.message, 'search');
  };
  // A listener of the PostgreSQL store that lost its connection: each loss is said, and while
  // it cannot reconnect (it retries every few seconds), the same reason only once in a row.
  let lastStoreProblem = '';
  const onStoreError = (error: ToolError): void => {
    if (error.message === lastStoreProblem) return;
    lastStoreProblem = error.message;
    warn(showControls(error.message), 'store');
  };
  const { metrics } = observed;
  const reported = new Set<string>();
  // Pinning's warnings (a changed tool, a new tool of a pinned server) are worth a line each.
  const pinLogger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => {
      warn(showControls(message));
    },
    // The cause (a store's error) is in `error`: without it the line says nothing to act on.
    error: (message: string, fields?: Record<string, unknown>) => {
      if (readOnly.refused(fields?.error)) return;
      const cause = typeof fields?.error === 'string' ? `: ${fields.error}` : '';
      warn(showControls(message + cause), 'error');
    },
  };
  // The toolkit's, the gateway's and the dashboard's warnings and errors, in the serve log.
  const logger = toolkitLogger((level, line, fields) => {
    // The serve log has no error level of its own: both are warnings, fields kept.
    const word = observed.log.json ? '' : `${observed.log.warnWord} `;
    observed.log.warn(`${word}${level === 'error' ? 'error: ' : ''}${showControls(line)}`, fields);
  });
  const opened = await openToolkit(cfg, {
    onEvent,
    logger,
    search: true,
    onSearchError,
    onStoreError,
    onReadOnly: readOnly.opened,
    // A refresh whose tokens the store refused goes on with them in memory.
    onUnsavedCredentials: (error) => {
      if (!readOnly.refused(error.message)) onStoreError(error);
    },
    pinLogger,
    onAudit: (record) => {
      observed.log.auditRecord(record);
    },
    ...(metrics === undefined ? {} : { wrapStore: (store) => metrics.instrumentStore(store) }),
    wait: false,
    start: false,
    signal: context.signal,
    env: context.env,
    ...(feed === undefined ? {} : { observers: [feed.middleware] }),
    ...(context.prestarted === undefined ? {} : { prestarted: context.prestarted }),
  });
  live.opened = opened;
  const gatewayOptions: GatewayOptions = {
    mode: cfg.mode,
    ...(Object.keys(cfg.codeMode).length === 0 ? {} : { codeMode: cfg.codeMode }),
    filter: cfg.filter,
    ...cfg.naming,
    ...(cfg.instructions === undefined ? {} : { instructions: cfg.instructions }),
    serverInfo: { name: 'toolplane', version: VERSION },
    observe: observed.log.observer,
    logger,
  };
  let gateway: ServedGateway | undefined;
  let dashboard: DashboardRoutes | undefined;
  let reloader: Reloader | undefined;
  let readyToServe = false;
  const stopped = new AbortController();
  const stop = (): void => {
    stopped.abort();
  };
  context.signal.addEventListener('abort', stop, { once: true });
  if (context.signal.aborted) stop();
  const waitMs = options.waitMs ?? cfg.waitMs;
  // Edits to the config file (and SIGHUP) are reconciled from before the URL is printed on.
  const watchConfig = async (served: ServedGateway): Promise<void> => {
    if (cfg.file === undefined || stopped.signal.aborted) return;
    const { startReloader } = await import('../reload/reloader.js');
    reloader = startReloader({
      config: cfg,
      opened,
      gateway: served,
      env: context.env,
      drainMs,
      hangUps,
      log: {
        info: log,
        warn: (text) => {
          warn(text);
        },
      },
      onApplied: () => {
        reportUnmatched();
      },
    });
  };
  // The gateway is attached first and the servers started after it, so that they connect once,
  // already told what the gateway's clients can do; the URL is printed (over stdio: the client's
  // first request read) only once they have connected (or failed, or the wait is over), so a
  // client's first tools/list has their tools.
  try {
    if (http) {
      const storeReady = storeReadiness(opened.store);
      const spendRequestState = requestStateSpenderFor(opened.store);
      const listening: { url?: URL } = {};
      dashboard = mountDashboard(output, {
        toolkit: opened.toolkit,
        cfg,
        filter: () => reloader?.config().filter ?? cfg.filter,
        token,
        auth,
        ...(feed === undefined ? {} : { feed }),
        ...(opened.pins === undefined ? {} : { pins: opened.pins }),
        endpoint: () => listening.url,
        observer: combineObservers(observed.log.observer, metrics?.observer),
        logger,
      });
      // MCP requests wait for the servers' first attempts as the printed URL does (a client
      // that found the port early must not get a partial tool list), bounded by the same wait.
      let startupOver = (): void => undefined;
      const startupDone = new Promise<void>((resolve) => {
        startupOver = resolve;
      });
      const served = await serveHttp(opened.toolkit, {
        ...gatewayOptions,
        host: options.host ?? cfg.http.host,
        port: options.port ?? cfg.http.port,
        path: cfg.http.path,
        ...(token === undefined ? {} : { token }),
        ...(auth === undefined ? {} : { auth }),
        ...(cfg.http.allowedOrigins === undefined
          ? {}
          : { allowedOrigins: cfg.http.allowedOrigins }),
        ...(cfg.http.allowedHosts === undefined ? {} : { allowedHosts: cfg.http.allowedHosts }),
        ...(cfg.http.stateless === undefined ? {} : { stateless: cfg.http.stateless }),
        maxSessions: cfg.http.maxSessions,
        sessionIdleMs: cfg.http.sessionIdleMs,
        maxConnections: cfg.http.maxConnections,
        maxConnectionsPerSource: cfg.http.maxConnectionsPerSource,
        ...(cfg.http.trustedProxies === undefined
          ? {}
          : { trustedProxies: cfg.http.trustedProxies }),
        ...(cfg.http.authFailureLimit === undefined
          ? {}
          : { authFailureLimit: cfg.http.authFailureLimit }),
        headersTimeoutMs: cfg.http.headersTimeoutMs,
        ...(cfg.http.streamAfterMs === undefined ? {} : { streamAfterMs: cfg.http.streamAfterMs }),
        ...(instanceId === undefined ? {} : { instanceId }),
        ...(requestStateKey === undefined ? {} : { requestStateKey }),
        ...(spendRequestState === undefined ? {} : { spendRequestState }),
        ...(cfg.http.replayTools === undefined ? {} : { replayTools: cfg.http.replayTools }),
        // Not before the servers have had their wait: a balancer would send calls for tools
        // this instance does not list yet.
        ready: (check) => (readyToServe ? storeReady(check) : Promise.resolve(false)),
        healthDetails: () => (reloader === undefined ? undefined : { config: reloader.details() }),
        drainMs,
        ...(dashboard === undefined ? {} : { routes: [dashboard] }),
        ...(metrics === undefined ? {} : { metrics }),
        startup: { until: startupDone, waitMs },
      });
      gateway = served;
      listening.url = served.url;
      context.stopTime(drainMs);
      opened.start();
      await waitForServers(observed.log, opened, waitMs, stopped.signal);
      // Every first attempt has begun: a server started early and not adopted never will be.
      context.prestarted?.dispose();
      if (auth !== undefined) await checkIssuer(output, auth, stopped.signal);
      await refuseUnmatchedAtStart(cfg, opened.toolkit);
      reportUnmatched();
      readyToServe = true;
      startupOver();
      await watchConfig(served);
      const dashboardUrl =
        dashboard === undefined ? undefined : new URL(`${dashboard.path}/`, served.url).href;
      if (!stopped.signal.aborted && observed.log.json) {
        log('listening', {
          url: served.url.href,
          metrics: new URL('/metrics', served.url).href,
          ...(dashboardUrl === undefined ? {} : { dashboard: dashboardUrl }),
        });
      } else if (!stopped.signal.aborted) {
        printHttpHelp(
          output,
          cfg,
          served.url.href,
          auth !== undefined ? 'oauth' : token !== undefined ? 'token' : 'open',
          dashboardUrl === undefined
            ? {}
            : { dashboard: dashboardUrl, login: token !== undefined || auth !== undefined },
        );
        if (auth !== undefined) await printAuthHelp(output, auth, served.url.href);
        log(c.dim(`instance ${String(instanceId)} serving (GET /healthz for a load balancer)`));
      }
    } else {
      // The client's first request waits in stdin until the servers are ready: only then is
      // stdin connected to the gateway.
      const input = new PassThrough();
      // The client closing stdin stops the gateway once its requests are answered.
      gateway = await serveStdio(opened.toolkit, {
        ...gatewayOptions,
        stdin: input,
        drainMs,
        onEnd: stop,
      });
      opened.start();
      await waitForServers(observed.log, opened, waitMs, stopped.signal);
      // Every first attempt has begun: a server started early and not adopted never will be.
      context.prestarted?.dispose();
      await refuseUnmatchedAtStart(cfg, opened.toolkit);
      reportUnmatched();
      await watchConfig(gateway);
      if (!stopped.signal.aborted) {
        process.stdin.pipe(input);
        if (!observed.log.json) printStdioHelp(output, cfg, context.self);
      }
    }
  } catch (error) {
    dashboard?.close();
    progress.stop();
    await gateway?.close();
    await opened.close();
    await observed.close();
    throw error;
  }
  if (!stopped.signal.aborted) {
    await new Promise<void>((resolve) => {
      stopped.signal.addEventListener('abort', () => {
        resolve();
      });
    });
  }
  log(
    c.dim(http ? `shutting down (draining calls in flight, up to ${drainMs} ms)` : 'shutting down'),
  );
  await reloader?.stop();
  dashboard?.close();
  progress.stop();
  await gateway.close();
  await opened.close();
  await observed.close();
  log(c.dim('stopped'));
  return 0;
}

/**
 * The bearer token: `--token`, else `--token-file`, else `TOOLPLANE_TOKEN`, else the config's
 * `http.token`. Every source obeys the config's rule of 16 characters or more.
 *
 * @throws {ToolError} `invalid_argument` for a short token or a token file that cannot be read.
 */
async function resolveToken(
  context: CommandContext,
  cfg: CliConfig,
  options: ServeOptions,
): Promise<string | undefined> {
  let token: string | undefined;
  let from: string;
  if (options.token !== undefined) {
    token = options.token;
    from = '--token';
  } else if (options.tokenFile !== undefined) {
    token = (await readNamedFile(context, options.tokenFile, '--token-file')).split(/\r?\n/)[0];
    from = `--token-file ${options.tokenFile}`;
  } else if ((context.env[TOKEN_VARIABLE] ?? '') !== '') {
    token = context.env[TOKEN_VARIABLE];
    from = TOKEN_VARIABLE;
  } else {
    return cfg.http.token;
  }
  token = token?.trim() ?? '';
  // Masked before anything can print it, short or not.
  if (token !== '') cfg.secrets.add(token);
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new ToolError(
      'invalid_argument',
      `${from}: the token must be at least ${MIN_TOKEN_LENGTH} characters (it has ${token.length}); e.g. openssl rand -hex 24`,
    );
  }
  return token;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ToolError('invalid_argument', `--port ${value}: must be an integer from 0 to 65535`);
  }
  return port;
}

function parseWaitMs(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0 || ms > 600_000) {
    throw new ToolError(
      'invalid_argument',
      `--wait-ms ${value}: must be an integer from 0 to 600000`,
    );
  }
  return ms;
}
