import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '@toolplane/toolmodel';

/** What a secret is replaced by wherever toolplane hands text out. */
export const MASK = '***';

// Shorter values would mask ordinary digits and words all over the output.
const MIN_SECRET_LENGTH = 4;

// Query parameters whose values are credentials by name (`?api_key=…`, `?access_token=…`, `?sig=…`).
const CREDENTIAL_PARAM =
  /(?:^|[-_.])(?:key|apikey|token|secret|password|passwd|pwd|pass|auth|authorization|credentials?|sig|signature|session|code)$/i;

/**
 * The secret values of a configuration (substituted environment variables, header values, URL
 * credentials, tokens), so that every text leaving the process — connector status, error
 * messages, error results, logs, printed output — can be scrubbed of them with
 * {@link Secrets.redact}. A value is also masked in its percent-encoded form, as it appears
 * inside URLs.
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
    for (const form of [value, safeEncode(value)]) {
      if (form === undefined || this.#values.has(form)) continue;
      this.#values.add(form);
      this.#pattern = undefined;
    }
  }

  /**
   * Remembers the credentials a URL carries: the password of its user info (or the user name
   * alone, the form `https://TOKEN@host` takes) and the values of query parameters named like
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
    this.add(password === '' ? user : password);
    for (const [name, value] of parsed.searchParams) {
      if (CREDENTIAL_PARAM.test(name)) this.add(value);
    }
  }

  /** How many secret forms are known (a value and its percent-encoded form count once each). */
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
    if (message === error.message) return error;
    if (ToolError.isInstance(error)) {
      return new ToolError(error.code, message, {
        cause: error.cause,
        ...(error.toolId === undefined ? {} : { toolId: error.toolId }),
      });
    }
    return new Error(message, { cause: error.cause });
  }

  /**
   * An error result (`isError: true`) with the text of its text blocks redacted, the rest intact;
   * any other result is returned as it is: what a tool returns on success is data, not a leak.
   */
  redactErrorResult(result: CallToolResult): CallToolResult {
    if (result.isError !== true || this.#values.size === 0) return result;
    let changed = false;
    const content = result.content.map((block) => {
      if (block.type !== 'text') return block;
      const text = this.redact(block.text);
      if (text === block.text) return block;
      changed = true;
      return { ...block, text };
    });
    return changed ? { ...result, content } : result;
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function safeEncode(value: string): string | undefined {
  const encoded = encodeURIComponent(value);
  return encoded === value ? undefined : encoded;
}
