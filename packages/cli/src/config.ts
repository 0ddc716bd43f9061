import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { sanitizeNamespace, ToolError, toolkitApproval } from '@toolplane/toolkit';
import { shellWord } from '@toolplane/toolmodel/text';
import type { GatewayToolFilter } from '@toolplane/gateway';
import { z } from 'zod';
import { configSchema, knownKeysAt, serverSchema } from './config-schema.js';
import { firstIssue, unknownKeyMessage, withoutForeignKeys } from './config-keys.js';
import { parseText, substitute } from './config-text.js';
import { stdioSource } from './config-stdio.js';
import { CONFIG_FILE_NAMES, findConfigFile } from './config-file.js';
import { Secrets } from './secrets.js';
import type { CliConfig, ConnectorAuthConfig, ConnectorConfig } from './config-types.js';
export type {
  ConnectorConfig,
  ConnectorAuthConfig,
  ScopeGrantConfig,
  AuthConfig,
  StoreConfig,
  SearchConfig,
  CliConfig,
} from './config-types.js';
export { CONFIG_FILE_NAMES, findConfigFile } from './config-file.js';

// Served and flagged rather than withheld: a server's ordinary upgrade must not make its tools
// vanish until someone accepts them; teams that review every change choose `block`.
const DEFAULT_PINNING = 'warn' as const;

/** Where the user store lives unless the config says otherwise, relative to the config file. */
export const DEFAULT_STORE_PATH = '.toolplane/toolplane.db';

/** The HTTP port `serve --http` listens on unless told otherwise. */
export const DEFAULT_HTTP_PORT = 8808;

/**
 * How long `serve` waits, unless told otherwise, for every server's first connection attempt
 * before it serves: long enough for an `npx` server to start, short enough to notice a hang.
 */
export const DEFAULT_WAIT_MS = 15_000;

/** How often `serve` pings each connected server unless the file says otherwise (30 s). */
export const DEFAULT_PING_INTERVAL_MS = 30_000;

/** A server's `timeout` in milliseconds: seconds below 1000, as Cursor and Cline write it. */
function timeoutMs(timeout: number): number {
  return timeout < 1_000 ? Math.round(timeout * 1_000) : Math.round(timeout);
}

type ServerEntry = z.infer<typeof serverSchema>;

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** The config file; default: the one {@link findConfigFile} finds in `cwd`. */
  readonly file?: string;
  /** Default `process.cwd()`. */
  readonly cwd?: string;
  /** Variables for `${NAME}` substitution; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal;
}

/**
 * Reads, substitutes and validates a toolplane config file (JSON or YAML; see
 * {@link parseConfig}).
 *
 * @throws {ToolError} `invalid_config` when there is no config file, it cannot be read or
 * parsed, or it is invalid: the message names the key path and the problem.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<CliConfig> {
  const cwd = options.cwd ?? process.cwd();
  const file = options.file === undefined ? findConfigFile(cwd) : resolve(cwd, options.file);
  if (file === undefined) {
    throw new ToolError(
      'invalid_config',
      `no ${CONFIG_FILE_NAMES.join(', ')} in ${cwd}; create one or pass --config FILE`,
    );
  }
  let text: string;
  try {
    text = await readFile(file, { encoding: 'utf8', signal: options.signal });
  } catch (error) {
    throw new ToolError(
      'invalid_config',
      `cannot read config file ${file}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return parseConfig(text, { file, ...(options.env === undefined ? {} : { env: options.env }) });
}

/** Options of {@link parseConfig}. */
export interface ParseConfigOptions {
  /** The file the text came from: names it in errors, and anchors relative paths. */
  readonly file: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Parses a config file's text: the `mcpServers` format of Claude Desktop and Cursor as it is
 * (or the same under `connectors`), plus toolplane's keys (`prompts`, `store`, `mode`, `naming`,
 * `instructions`, `waitMs`, `http`, `builtins`, `builtinWorkers`, and per server `namespace`, `tools` filters and
 * `module`). Unknown keys are refused with the nearest known one, except the few that Claude
 * Desktop, Cursor, Cline or VS Code files carry for themselves (see `config-keys.ts`), which are ignored.
 * `${NAME}` and `${NAME:-default}` in any string are replaced from the environment, and the
 * values remembered as secrets.
 *
 * @throws {ToolError} `invalid_config` naming the key path and the problem, e.g.
 * `mcpServers.github.url: must be an http(s) URL` or `http: unknown key "tokn"; did you mean
 * "token"?`.
 */
export function parseConfig(text: string, options: ParseConfigOptions): CliConfig {
  const { file } = options;
  const where = basename(file);
  const raw = parseText(text, file);
  const secrets = new Secrets();
  const substituted = substitute(raw, [], options.env ?? process.env, secrets, where);
  const parsed = configSchema.safeParse(withoutForeignKeys(substituted ?? {}));
  if (!parsed.success) {
    const issue = firstIssue(parsed.error.issues);
    const path = issue?.path.map(String).join('.') ?? '';
    const message =
      issue?.code === 'unrecognized_keys'
        ? issue.keys.map((key) => unknownKeyMessage(key, knownKeysAt(issue.path))).join('; ')
        : (issue?.message ?? 'invalid');
    throw new ToolError('invalid_config', `${where}: ${path === '' ? '' : `${path}: `}${message}`);
  }
  const data = parsed.data;
  const dir = dirname(file);
  const fail = (path: string, problem: string): never => {
    throw new ToolError('invalid_config', `${where}: ${path}: ${problem}`);
  };

  const entries: [string, string, ServerEntry][] = [];
  for (const section of ['mcpServers', 'connectors'] as const) {
    for (const [key, server] of Object.entries(data[section] ?? {})) {
      if (server.disabled !== true) entries.push([section, key, server]);
    }
  }
  const connectors: ConnectorConfig[] = [];
  const filter: Record<string, GatewayToolFilter> = {};
  const taken = new Map<string, string>([
    ['builtin', 'the builtin tools'],
    ['user', 'the user store'],
  ]);
  for (const [section, key, server] of entries) {
    const path = `${section}.${key}`;
    const namespace = server.namespace ?? sanitizeNamespace(key);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(namespace)) {
      fail(`${path}.namespace`, 'must be 1-64 characters of A-Z a-z 0-9 _ -');
    }
    const owner = taken.get(namespace);
    if (owner !== undefined) {
      fail(
        path,
        `namespace "${namespace}" is already used by ${owner}; set "namespace" to another`,
      );
    }
    taken.set(namespace, path);
    for (const value of Object.values(server.env ?? {})) secrets.add(value);
    for (const value of Object.values(server.headers ?? {})) secrets.add(value);
    if ('url' in server) secrets.addUrl(server.url);
    if (server.auth !== undefined && server.url === undefined) {
      fail(`${path}.auth`, 'OAuth is for HTTP servers: give the server a "url"');
    }
    const auth = server.auth === undefined ? undefined : toAuth(server.auth, { path, dir, fail });
    connectors.push({
      ...toConnector(server, { key, namespace, path, dir, secrets, fail }),
      connection: server.connection ?? 'shared',
      era: server.era ?? 'auto',
      ...(server.timeout === undefined ? {} : { startTimeoutMs: timeoutMs(server.timeout) }),
      ...(auth === undefined ? {} : { auth }),
    });
    secrets.add(auth?.clientSecret);
    secrets.add(auth?.privateKey);
    if (server.tools !== undefined) filter[namespace] = server.tools;
  }

  const http = data.http ?? {};
  secrets.add(http.token);
  if (data.auth !== undefined && http.token !== undefined) {
    fail(
      'auth',
      'auth (OAuth) and http.token (one static token) are exclusive; remove one of them',
    );
  }
  secrets.add(data.auth?.introspection?.clientSecret);
  secrets.add(data.search?.embeddings?.apiKey);
  if (data.approval !== undefined) {
    // Built once here so a bad glob is a config error with its path, before anything starts.
    try {
      toolkitApproval(data.approval);
    } catch (error) {
      fail('approval', error instanceof Error ? error.message : String(error));
    }
  }
  for (const value of Object.values(data.telemetry?.otlp?.headers ?? {})) secrets.add(value);
  return {
    file,
    dir,
    connectors,
    builtins: data.builtins ?? true,
    ...(data.builtinWorkers === undefined ? {} : { builtinWorkers: data.builtinWorkers }),
    promptsDir: data.prompts === undefined ? undefined : resolve(dir, data.prompts),
    store: toStore(data.store, dir, secrets),
    mode: data.mode ?? 'tools',
    codeMode: data.codeMode ?? {},
    search: {
      learn: data.search?.learn ?? true,
      ...(data.search?.embeddings === undefined ? {} : { embeddings: data.search.embeddings }),
    },
    naming: data.naming ?? {},
    instructions: data.instructions,
    waitMs: data.waitMs ?? DEFAULT_WAIT_MS,
    strict: data.strict ?? false,
    sessionConnections: data.sessionConnections ?? {},
    ...(data.approval === undefined ? {} : { approval: data.approval }),
    pingIntervalMs: data.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
    pinning: data.pinning ?? DEFAULT_PINNING,
    filter,
    http: {
      host: http.host ?? '127.0.0.1',
      port: http.port ?? DEFAULT_HTTP_PORT,
      path: http.path ?? '/mcp',
      ...(http.token === undefined ? {} : { token: http.token }),
      ...(http.allowedOrigins === undefined ? {} : { allowedOrigins: http.allowedOrigins }),
      ...(http.allowedHosts === undefined ? {} : { allowedHosts: http.allowedHosts }),
      ...(http.stateless === undefined ? {} : { stateless: http.stateless }),
      maxSessions: http.maxSessions,
      sessionIdleMs: http.sessionIdleMs,
      maxConnections: http.maxConnections,
      maxConnectionsPerSource: http.maxConnectionsPerSource,
      ...(http.trustedProxies === undefined ? {} : { trustedProxies: http.trustedProxies }),
      ...(http.authFailureLimit === undefined ? {} : { authFailureLimit: http.authFailureLimit }),
      headersTimeoutMs: http.headersTimeoutMs,
      ...(http.streamAfterMs === undefined ? {} : { streamAfterMs: http.streamAfterMs }),
      ...(http.instanceId === undefined ? {} : { instanceId: http.instanceId }),
      ...(http.drainMs === undefined ? {} : { drainMs: http.drainMs }),
      ...(http.replayTools === undefined ? {} : { replayTools: http.replayTools }),
    },
    ...(data.auth === undefined ? {} : { auth: data.auth }),
    log: {
      format: data.log?.format ?? 'text',
      level: data.log?.level ?? 'info',
      arguments: data.log?.arguments ?? false,
    },
    telemetry: data.telemetry?.otlp === undefined ? {} : { otlp: data.telemetry.otlp },
    secrets,
  };
}

function toAuth(
  auth: NonNullable<ServerEntry['auth']>,
  at: { path: string; dir: string; fail: (path: string, problem: string) => never },
): ConnectorAuthConfig {
  const { path, fail } = at;
  if (
    auth.redirectUri !== undefined &&
    !/^http:\/\/(127\.0\.0\.1|\[::1\])(:\d+)?\//.test(auth.redirectUri)
  ) {
    fail(`${path}.auth.redirectUri`, 'must be a loopback URI: http://127.0.0.1:PORT/path');
  }
  const { grant = 'authorization_code', privateKeyFile, ...rest } = auth;
  if (privateKeyFile === undefined) return { grant, ...rest };
  try {
    return { grant, ...rest, privateKey: readFileSync(resolve(at.dir, privateKeyFile), 'utf8') };
  } catch (error) {
    return fail(`${path}.auth.privateKeyFile`, `cannot be read (${(error as Error).message})`);
  }
}

/** A configuration with no connectors, builtins on and an in-memory store; for embedding. */
export function emptyConfig(dir: string = process.cwd()): CliConfig {
  return parseConfig('{ "store": "memory" }', { file: join(dir, 'toolplane.config.json') });
}

/** Whether `filter` lets a tool through; deny wins over allow (the gateway's rule). */
export function isAllowed(
  filter: GatewayToolFilter | undefined,
  tool: { readonly name: string; readonly tags?: readonly string[] | undefined },
): boolean {
  if (filter === undefined) return true;
  const tags = tool.tags ?? [];
  if (filter.deny?.includes(tool.name) === true) return false;
  if (filter.denyTags?.some((tag) => tags.includes(tag)) === true) return false;
  if (filter.allow !== undefined && !filter.allow.includes(tool.name)) return false;
  if (filter.allowTags !== undefined && !filter.allowTags.some((tag) => tags.includes(tag))) {
    return false;
  }
  return true;
}

function toConnector(
  server: ServerEntry,
  context: {
    key: string;
    namespace: string;
    path: string;
    dir: string;
    secrets: Secrets;
    fail: (path: string, problem: string) => never;
  },
): Omit<ConnectorConfig, 'connection' | 'era'> {
  const { key, namespace, path, dir, secrets } = context;
  if (server.url !== undefined) {
    const headers = server.headers ?? {};
    const shownHeaders = Object.keys(headers).map((name) => ` (${name}: ***)`);
    return {
      key,
      namespace,
      transport: 'http',
      source: { url: server.url, headers },
      display: secrets.redact(server.url) + shownHeaders.join(''),
    };
  }
  const source = stdioSource(server, dir);
  if (source === undefined) {
    return context.fail(
      `${path}.module`,
      `cannot find the installed package "${String(server.module)}" (with a "bin") from ${dir}; install it next to the config file`,
    );
  }
  const { command, args } = source;
  const shown =
    server.module === undefined ? [command, ...args] : [server.module, ...args.slice(1)];
  return {
    key,
    namespace,
    transport: 'stdio',
    source,
    display: secrets.redact(shown.map(shellWord).join(' ')),
  };
}

function toStore(value: z.infer<typeof configSchema>['store'], dir: string, secrets: Secrets) {
  if (value === undefined || value === 'sqlite') {
    return { kind: 'sqlite', path: resolve(dir, DEFAULT_STORE_PATH) } as const;
  }
  if (value === 'memory') return { kind: 'memory' } as const;
  if ('sqlite' in value) return { kind: 'sqlite', path: resolve(dir, value.sqlite) } as const;
  // A string the URL parser refuses adds nothing; pg reports it when connecting.
  secrets.addUrl(value.postgres);
  return {
    kind: 'postgres',
    connectionString: value.postgres,
    ...(value.schema === undefined ? {} : { schema: value.schema }),
  } as const;
}
