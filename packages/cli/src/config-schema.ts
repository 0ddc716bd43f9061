// The zod schemas of the config file, and the keys each section of it knows.
import { didYouMean, separatorProblem } from '@toolplane/toolmodel';
import { z } from 'zod';

const stringList = z.array(z.string());

const STORE_KINDS = ['sqlite', 'memory'] as const;

/** What a `store` value that fits none of its forms gets: the forms, and the likely one. */
function storeProblem(value: unknown): string {
  const forms =
    'must be "sqlite", "memory", { sqlite: FILE } or { postgres: postgres://…, schema? }';
  const near = typeof value === 'string' ? didYouMean(value, STORE_KINDS) : undefined;
  return near === undefined ? forms : `${forms}; did you mean "${near}"?`;
}

const filterSchema = z.strictObject({
  allow: stringList.optional(),
  deny: stringList.optional(),
  allowTags: stringList.optional(),
  denyTags: stringList.optional(),
});

const isHttpUrl = (value: string): boolean => {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
};

/** A connector's OAuth client (the per-server `auth` key of an HTTP server). */
export const connectorAuthSchema = z
  .strictObject({
    grant: z.enum(['authorization_code', 'client_credentials']).optional(),
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    privateKey: z.string().min(1).optional(),
    privateKeyFile: z.string().min(1).optional(),
    privateKeyAlg: z.string().min(1).optional(),
    scopes: stringList.optional(),
    clientMetadataUrl: z
      .string()
      .refine((value) => value.startsWith('https://'), 'must be an https URL')
      .optional(),
    redirectUri: z.string().optional(),
  })
  .superRefine((auth, context) => {
    const keyed = auth.privateKey !== undefined || auth.privateKeyFile !== undefined;
    const problem =
      auth.privateKey !== undefined && auth.privateKeyFile !== undefined
        ? 'give "privateKey" or "privateKeyFile", not both'
        : keyed && auth.clientSecret !== undefined
          ? '"clientSecret" and a private key exclude each other: give one'
          : keyed && auth.clientId === undefined
            ? 'a private key (private_key_jwt) needs "clientId"'
            : auth.grant === 'client_credentials' &&
                (!auth.clientId || !(auth.clientSecret || keyed))
              ? 'the client_credentials grant needs "clientId" and "clientSecret" (or "privateKey"/"privateKeyFile")'
              : undefined;
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  });

// Strict, so that a misspelled key is an error rather than a setting silently lost; the keys
// that Cursor, Cline or VS Code files carry for themselves are removed by name before parsing
// (see FOREIGN_SERVER_KEYS), so an existing file still works as it is.
export const serverSchema = z
  .strictObject({
    type: z.enum(['stdio', 'http', 'streamable-http', 'sse']).optional(),
    command: z.string().trim().min(1, 'must be a non-empty command').optional(),
    module: z.string().trim().min(1, 'must be an npm package name').optional(),
    args: stringList.optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    url: z.string().refine(isHttpUrl, 'must be an http(s) URL').optional(),
    headers: z.record(z.string(), z.string()).optional(),
    namespace: z.string().optional(),
    connection: z.enum(['shared', 'per-session']).optional(),
    // YAML reads an unquoted `era: 2026` as a number.
    era: z
      .preprocess(
        (value) => (typeof value === 'number' ? String(value) : value),
        z.enum(['auto', '2025', '2026'], { error: 'must be "auto", "2025" or "2026"' }),
      )
      .optional(),
    tools: filterSchema.optional(),
    auth: connectorAuthSchema.optional(),
    disabled: z.boolean().optional(),
    // Cursor's and Cline's key: seconds there (`timeout: 60`); a value of 1000 or more is read as
    // milliseconds, as a number that large is surely meant.
    timeout: z
      .number()
      .positive('must be a positive number of seconds (or, from 1000 on, milliseconds)')
      .max(3_600_000, 'must be at most an hour')
      .optional(),
  })
  .superRefine((server, context) => {
    const kinds = (['command', 'module', 'url'] as const).filter((k) => server[k] !== undefined);
    if (kinds.length !== 1) {
      context.addIssue({
        code: 'custom',
        message:
          kinds.length === 0
            ? 'needs "command" (a stdio server), "module" (an installed npm package) or "url" (a remote server)'
            : `has both ${kinds.map((k) => `"${k}"`).join(' and ')}; keep one`,
      });
    }
  });

// The gateway's limit on failed authentications (see serveHttp's authFailureLimit), or false.
const authFailureLimitObject = z.strictObject({
  maxFailures: z.number().int().min(1).optional(),
  windowMs: z.number().int().min(1_000, 'must be at least 1000 (one second)').optional(),
  refusalMs: z.number().int().min(1_000, 'must be at least 1000 (one second)').optional(),
  maxRefusalMs: z.number().int().min(1_000, 'must be at least 1000 (one second)').optional(),
  maxSources: z.number().int().min(1).optional(),
});

const authFailureLimitSchema = z.union(
  [
    z.literal(false),
    authFailureLimitObject.refine(
      (limit) =>
        limit.maxRefusalMs === undefined || limit.maxRefusalMs >= (limit.refusalMs ?? 60_000),
      { message: 'must be at least refusalMs (default 60000)', path: ['maxRefusalMs'] },
    ),
  ],
  {
    error: `must be false (no limit) or an object of ${Object.keys(authFailureLimitObject.shape).join(', ')}`,
  },
);

const httpSchema = z.strictObject({
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65_535).optional(),
  path: z.string().startsWith('/', 'must start with "/"').optional(),
  token: z.string().min(16, 'must be at least 16 characters').optional(),
  allowedOrigins: stringList.optional(),
  allowedHosts: stringList.optional(),
  stateless: z.boolean().optional(),
  maxSessions: z.number().int().min(1).optional(),
  sessionIdleMs: z.number().int().min(1_000, 'must be at least 1000 (one second)').optional(),
  maxConnections: z.number().int().min(1).optional(),
  maxConnectionsPerSource: z.number().int().min(1).optional(),
  trustedProxies: stringList.optional(),
  authFailureLimit: authFailureLimitSchema.optional(),
  headersTimeoutMs: z.number().int().min(100).optional(),
  streamAfterMs: z
    .number()
    .int()
    .min(0)
    .max(120_000, 'must be at most 120000 (two minutes)')
    .optional(),
  instanceId: z
    .string()
    .regex(/^[\w.:-]{1,128}$/, 'must be 1-128 of A-Z a-z 0-9 _ . : -')
    .optional(),
  drainMs: z.number().int().min(0).max(120_000, 'must be at most 120000 (two minutes)').optional(),
  replayTools: stringList.optional(),
});

const scopeGrantSchema = z.strictObject({
  namespaces: stringList.optional(),
  tools: stringList.optional(),
  tags: stringList.optional(),
  prompts: stringList.optional(),
  resources: stringList.optional(),
});

const introspectionSchema = z.strictObject({
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  endpoint: z.string().refine(isHttpUrl, 'must be an http(s) URL').optional(),
  cache: z
    .union([
      z.literal(false),
      z.strictObject({
        maxTtlSec: z.number().int().min(0).max(3600).optional(),
        maxEntries: z.number().int().min(1).max(1_000_000).optional(),
      }),
    ])
    .optional(),
});

const authSchema = z.strictObject({
  issuer: z.string().refine(isHttpUrl, 'must be an http(s) URL'),
  audience: z.string().refine(isHttpUrl, 'must be an http(s) URL').optional(),
  scopes: z.record(z.string(), scopeGrantSchema).optional(),
  challengeScopes: stringList.optional(),
  introspection: introspectionSchema.optional(),
  requireAccessTokenType: z.boolean().optional(),
});

/** `search.embeddings`: any OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, …). */
export const embeddingsSchema = z.strictObject({
  url: z.string().refine(isHttpUrl, 'must be an http(s) URL'),
  model: z.string().min(1),
  apiKey: z.string().min(1).optional(),
  dimensions: z.number().int().min(1).max(65_536).optional(),
  weight: z.number().min(0).max(1).optional(),
  batchSize: z.number().int().min(1).max(2_048).optional(),
  requestsPerMinute: z.number().int().min(1).max(100_000).optional(),
  timeoutMs: z.number().int().min(1).max(600_000).optional(),
  queryWaitMs: z.number().int().min(0).max(600_000).optional(),
});

/** `search`: learning from use (on unless `learn: false`), and embeddings when configured. */
export const searchSchema = z.strictObject({
  learn: z.boolean().optional(),
  embeddings: embeddingsSchema.optional(),
});

// Which calls a person approves first (issue 34); the globs are checked when the config is read.
export const approvalSchema = z.strictObject({
  destructive: z.boolean().optional(),
  unannotated: z.boolean().optional(),
  tools: stringList.optional(),
  except: stringList.optional(),
  timeoutMs: z
    .number()
    .int()
    .min(1_000, 'must be at least 1000 (one second)')
    .max(3_600_000, 'must be at most 3600000 (one hour)')
    .optional(),
  remember: z.enum(['never', 'session'], { error: 'must be "never" or "session"' }).optional(),
});

const bound = (max: number, words: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(max, `must be at most ${String(max)} (${words})`)
    .optional();

/** `codeMode:` — the bounds of `mode: code`'s runs (`@toolplane/codemode`'s options). */
export const codeModeSchema = z.strictObject({
  timeoutMs: bound(3_600_000, 'one hour'),
  memoryLimitBytes: bound(4 * 1024 ** 3, '4 GiB'),
  maxStackBytes: bound(4 * 1024 ** 2, '4 MiB, the engine stack'),
  maxToolCalls: bound(1_000_000, 'a million'),
  maxSearches: bound(1_000_000, 'a million'),
  maxConcurrentCalls: bound(1_000, 'a thousand'),
  maxLogBytes: bound(64 * 1024 ** 2, '64 MiB'),
  maxResultBytes: bound(64 * 1024 ** 2, '64 MiB'),
  maxConcurrentRuns: bound(256, 'worker threads'),
});

/** `log:` — how `serve` writes its log (the `--log-format` flag wins over `format`). */
export const logSchema = z.strictObject({
  format: z.enum(['text', 'json'], { error: 'must be "text" or "json"' }).optional(),
  level: z
    .enum(['debug', 'info', 'warn', 'error'], {
      error: 'must be "debug", "info", "warn" or "error"',
    })
    .optional(),
  arguments: z.boolean().optional(),
});

const otlpSchema = z.strictObject({
  url: z.string().refine(isHttpUrl, 'must be an http(s) URL'),
  headers: z.record(z.string(), z.string()).optional(),
});

/** `telemetry:` — where traces go. */
export const telemetrySchema = z.strictObject({ otlp: otlpSchema.optional() });

// Strict: an `auth:` section or a misspelled `htpp:` must not start an unprotected gateway
// without a word. Claude Desktop's own keys are removed by name first (FOREIGN_TOP_LEVEL_KEYS).
export const configSchema = z.strictObject({
  mcpServers: z.record(z.string(), serverSchema).optional(),
  connectors: z.record(z.string(), serverSchema).optional(),
  builtins: z.boolean().optional(),
  builtinWorkers: z
    .strictObject({
      threads: z.number().int().min(1).max(64).optional(),
      perCaller: z.number().int().min(1).max(64).optional(),
    })
    .optional(),
  prompts: z.string().min(1).optional(),
  store: z
    .union(
      [
        z.enum(STORE_KINDS),
        z.strictObject({ sqlite: z.string().min(1) }),
        z.strictObject({
          postgres: z
            .string()
            .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string'),
          schema: z.string().optional(),
        }),
      ],
      { error: (issue) => storeProblem(issue.input) },
    )
    .optional(),
  mode: z.enum(['tools', 'search', 'code']).optional(),
  codeMode: codeModeSchema.optional(),
  search: searchSchema.optional(),
  pinning: z.enum(['block', 'warn', 'off']).optional(),
  naming: z
    .strictObject({
      // Outside a tool name's characters, every namespaced tool's name went out hashed.
      separator: z
        .string()
        .min(1)
        .superRefine((separator, context) => {
          const problem = separatorProblem(separator);
          if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
        })
        .optional(),
      transparent: z.string().optional(),
    })
    .optional(),
  instructions: z.string().optional(),
  waitMs: z.number().int().min(0).max(600_000, 'must be at most 600000 (ten minutes)').optional(),
  strict: z.boolean().optional(),
  pingIntervalMs: z
    .number()
    .int()
    .refine(
      (ms) => ms === 0 || (ms >= 1_000 && ms <= 3_600_000),
      'must be 0 (off) or 1000 to 3600000',
    )
    .optional(),
  sessionConnections: z
    .strictObject({
      max: z.number().int().min(1).max(10_000).optional(),
      idleMs: z.number().int().min(1_000).max(86_400_000).optional(),
    })
    .optional(),
  http: httpSchema.optional(),
  auth: authSchema.optional(),
  approval: approvalSchema.optional(),
  log: logSchema.optional(),
  telemetry: telemetrySchema.optional(),
});

const namingKeys = ['separator', 'transparent'] as const;

/** The keys toolplane reads in the object at `path` of a config file. */
export function knownKeysAt(path: readonly PropertyKey[]): readonly string[] {
  const [section, , inner] = path;
  if (path.length === 0) return Object.keys(configSchema.shape);
  if (section === 'http') {
    return path[1] === 'authFailureLimit'
      ? Object.keys(authFailureLimitObject.shape)
      : Object.keys(httpSchema.shape);
  }
  if (section === 'auth') {
    if (path[1] === 'introspection') return Object.keys(introspectionSchema.shape);
    return path[1] === 'scopes'
      ? Object.keys(scopeGrantSchema.shape)
      : Object.keys(authSchema.shape);
  }
  if (section === 'naming') return namingKeys;
  if (section === 'search') {
    return path[1] === 'embeddings'
      ? Object.keys(embeddingsSchema.shape)
      : Object.keys(searchSchema.shape);
  }
  if (section === 'approval') return Object.keys(approvalSchema.shape);
  if (section === 'codeMode') return Object.keys(codeModeSchema.shape);
  if (section === 'log') return Object.keys(logSchema.shape);
  if (section === 'telemetry')
    return path[1] === 'otlp' ? Object.keys(otlpSchema.shape) : Object.keys(telemetrySchema.shape);
  if (section === 'sessionConnections') return ['max', 'idleMs'];
  if (section === 'builtinWorkers') return ['threads', 'perCaller'];
  if (section === 'mcpServers' || section === 'connectors') {
    if (inner === 'auth') return Object.keys(connectorAuthSchema.shape);
    return inner === 'tools' ? Object.keys(filterSchema.shape) : Object.keys(serverSchema.shape);
  }
  return [];
}
