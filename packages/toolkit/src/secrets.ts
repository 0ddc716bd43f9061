import { ProtocolError, type CallToolResult } from '@modelcontextprotocol/client';
import { ToolError } from '@toolplane/toolmodel';
import type { ConnectorEvent, ConnectorSource } from './connectors/connector.js';
import type { Logger } from './session.js';

/** What a secret is replaced by wherever toolplane hands text out. */
export const MASK = '***';

// Shorter values would mask ordinary digits and words all over the output.
const MIN_SECRET_LENGTH = 4;

// Shorter user names without a password are logins, not tokens.
const MIN_BARE_USER_TOKEN = 20;

// Query parameters whose values are credentials by name (`?api_key=…`, `?access_token=…`, `?sig=…`).
const CREDENTIAL_PARAM =
  /(?:^|[-_.])(?:key|apikey|token|secret|password|passwd|pwd|pass|auth|authorization|credentials?|sig|signature|session|code)$/i;

/**
 * The secret values of a configuration (substituted environment variables, header values, URL
 * credentials, tokens), so that every text leaving the process — connector status, error
 * messages, error results, logs, printed output — can be scrubbed of them with
 * {@link Secrets.redact}. A value is also masked in every form it takes when it travels: each
 * percent-encoding a URL gives it (in a query, a path, user info, or as a URI component), the
 * form encoding (`+` for a space) and, for a URL's user and password, the Basic authorization.
 */
export class Secrets {
  readonly #values = new Set<string>();
  #pattern: RegExp | undefined;

  /** Remembers each of `values` as a secret; values shorter than four characters are ignored. */
  constructor(values: Iterable<string> = []) {
    for (const value of values) this.add(value);
  }

  /** Remembers `value` as a secret; short values are ignored. */
  add(value: string | undefined): void {
    if (value === undefined || value.length < MIN_SECRET_LENGTH) return;
    for (const form of encodings(value)) {
      if (this.#values.has(form)) continue;
      this.#values.add(form);
      this.#pattern = undefined;
    }
  }

  /**
   * Remembers the credentials a URL carries: the password of its user info (or a token-sized
   * user name alone, the form `https://TOKEN@host` takes) and the values of query parameters named like
   * credentials (`key`, `api_key`, `token`, `access_token`, `secret`, `password`, `sig`, …).
   * A string that is not a URL adds nothing.
   */
  addUrl(url: string | URL | undefined): void {
    if (url === undefined) return;
    let parsed: URL;
    try {
      parsed = typeof url === 'string' ? new URL(url) : url;
    } catch {
      return;
    }
    const user = safeDecode(parsed.username);
    const password = safeDecode(parsed.password);
    // A user name alone is a credential when it is token-sized (`https://ghp_…@host`), not a
    // login such as `postgres` that would mask the word everywhere.
    this.add(password !== '' ? password : user.length >= MIN_BARE_USER_TOKEN ? user : undefined);
    // What a client sends for these credentials: `Authorization: Basic base64(user:password)`.
    if (password !== '') this.add(Buffer.from(`${user}:${password}`).toString('base64'));
    for (const [name, value] of parsed.searchParams) {
      if (CREDENTIAL_PARAM.test(name)) this.add(value);
    }
  }

  /**
   * Remembers what a connector source carries that must not be shown: its URL's credentials,
   * its header values and its bearer token. A stdio source's environment is not taken: which of
   * its values are secret only the configuration knows (the CLI adds those it substituted).
   */
  addSource(source: ConnectorSource): void {
    if (typeof source === 'string' || source instanceof URL) {
      this.addUrl(source);
      return;
    }
    if (!('url' in source)) return;
    this.addUrl(source.url);
    for (const value of Object.values(source.headers ?? {})) {
      this.add(value);
      // `Bearer abc…`: the credential alone, should it appear without its scheme.
      this.add(/^\S+\s+(\S{4,})$/.exec(value)?.[1]);
      this.#addBasic(value);
    }
    this.add(source.token);
  }

  /** The password of a `Basic` authorization value, should it appear decoded. */
  #addBasic(header: string): void {
    const encoded = /^basic\s+([A-Za-z0-9+/]+=*)$/i.exec(header.trim())?.[1];
    if (encoded === undefined) return;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) this.add(decoded.slice(colon + 1));
  }

  /** How many secret forms are known (a value and each of its encoded forms count once each). */
  get size(): number {
    return this.#values.size;
  }

  /** `text` with every known secret replaced by {@link MASK}. */
  redact(text: string): string {
    if (this.#values.size === 0) return text;
    // Longest first, so a secret containing another is masked whole.
    this.#pattern ??= new RegExp(
      [...this.#values]
        .sort((a, b) => b.length - a.length)
        .map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|'),
      'g',
    );
    return text.replace(this.#pattern, MASK);
  }

  /**
   * `error` with its message redacted: a {@link ToolError} keeps its code, tool ID and cause; any
   * other error becomes an `Error` with the redacted message. The same object when nothing changes.
   */
  redactError<E>(error: E): E | ToolError | Error {
    if (this.#values.size === 0 || !(error instanceof Error)) return error;
    const message = this.redact(error.message);
    // An upstream's error result rides along in the cause chain and is what a gateway hands on.
    const cause = isErrorResult(error.cause)
      ? this.redactErrorResult(error.cause)
      : error.cause instanceof Error
        ? this.redactError(error.cause)
        : error.cause;
    // A server's JSON-RPC error keeps its code (a gateway hands it on as it came), its data masked.
    if (ProtocolError.isInstance(error)) {
      // `undefined` data has no JSON text.
      const text = JSON.stringify(error.data) as string | undefined;
      const masked = text === undefined ? undefined : this.redact(text);
      if (message === error.message && masked === text) return error;
      const data = masked === undefined || masked === text ? error.data : parseOr(masked);
      return new ProtocolError(error.code, message, data);
    }
    if (message === error.message && cause === error.cause) return error;
    if (ToolError.isInstance(error)) {
      const { toolId, backend, op, errors } = error;
      return new ToolError(error.code, message, { cause, toolId, backend, op, errors });
    }
    return new Error(message, { cause });
  }

  /**
   * `event` with the secrets masked where a server's words reach it: a state change's error and a
   * log message's data. The same object when nothing changes.
   */
  redactEvent<E extends ConnectorEvent>(event: E): E {
    if (this.#values.size === 0) return event;
    if (event.type === 'state_change' && event.error !== undefined) {
      const error = this.redactError(event.error);
      return error === event.error ? event : { ...event, error };
    }
    if (event.type === 'log_message') {
      // `undefined` data has no JSON text.
      const text = JSON.stringify(event.data) as string | undefined;
      if (text === undefined) return event;
      const masked = this.redact(text);
      if (masked === text) return event;
      return { ...event, data: parseOr(masked) };
    }
    return event;
  }

  /**
   * An error result (`isError: true`) with the text of its text blocks redacted, the rest intact;
   * any other result is returned as it is: what a tool returns on success is data, not a leak.
   */
  redactErrorResult<R extends Pick<CallToolResult, 'isError' | 'content'>>(result: R): R {
    if (result.isError !== true || this.#values.size === 0) return result;
    const content = result.content.map((block) => {
      if (block.type !== 'text') return block;
      const text = this.redact(block.text);
      return text === block.text ? block : { ...block, text };
    });
    return content.some((block, i) => block !== result.content[i])
      ? { ...result, content }
      : result;
  }
}

/**
 * `logger` with the secrets masked in every message and in the string and error values of its
 * data (one level deep: what toolplane logs).
 */
export function redactingLogger(logger: Logger, secrets: Secrets): Logger {
  const data = (fields?: Record<string, unknown>): Record<string, unknown> | undefined => {
    if (fields === undefined || secrets.size === 0) return fields;
    return Object.fromEntries(
      Object.entries(fields).map(([key, value]) => [
        key,
        typeof value === 'string' ? secrets.redact(value) : secrets.redactError(value),
      ]),
    );
  };
  return {
    debug: (message, fields) => {
      logger.debug(secrets.redact(message), data(fields));
    },
    info: (message, fields) => {
      logger.info(secrets.redact(message), data(fields));
    },
    warn: (message, fields) => {
      logger.warn(secrets.redact(message), data(fields));
    },
    error: (message, fields) => {
      logger.error(secrets.redact(message), data(fields));
    },
  };
}

// A secret that spans JSON syntax could leave masked JSON unparsable: then the text is the data.
function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isErrorResult(value: unknown): value is CallToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { isError?: unknown }).isError === true &&
    Array.isArray((value as { content?: unknown }).content)
  );
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * `value` and the forms it takes encoded: the WHATWG URL serializer escapes a query, a path and
 * user info each with its own set (a query keeps `^` and a space becomes `%20`, where
 * `encodeURIComponent` escapes both), RFC 3986's strict encoders escape `'` too, forms use `+`
 * for a space, and some encoders write lower-case hex.
 */
function encodings(value: string): Set<string> {
  const url = new URL('http://secret.invalid/');
  url.search = value;
  const query = url.search.slice(1);
  url.pathname = `/${value}`;
  const path = url.pathname.slice(1);
  url.password = value;
  const forms = [
    value,
    encodeURIComponent(value),
    // RFC 3986's strict form (every character but the unreserved ones), as most other encoders.
    encodeURIComponent(value).replace(
      /[!'()*]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    ),
    query,
    path,
    url.password,
    new URLSearchParams([['', value]]).toString().slice(1),
  ];
  const lower = forms.map((form) => form.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  return new Set([...forms, ...lower].filter((form) => form.length >= MIN_SECRET_LENGTH));
}
