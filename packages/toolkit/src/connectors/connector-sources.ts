import type { Client } from '@modelcontextprotocol/client';
import { checkCount, ToolError } from '@toolplane/toolmodel';
import type { ConnectorSource, HttpSource, StdioSource } from './connector-types.js';
import type { StdioClientTransport } from './transport/stdio-client-transport.js';

const STDERR_TAIL_BYTES = 2_048;

export function isStdio(source: ConnectorSource): source is StdioSource {
  return typeof source === 'object' && !(source instanceof URL) && 'command' in source;
}

export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/** The last of what a child wrote on stderr, kept as it comes. */
export function captureTail(transport: StdioClientTransport): () => string {
  let tail = '';
  transport.stderr.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  });
  return () => tail;
}

/** Where an HTTP source is, and the headers it needs. */
export interface HttpTarget {
  readonly url: URL;
  readonly headers: Record<string, string>;
}

/** Resolves when `client` closes. */
export function closedPromise(client: Client): Promise<void> {
  return new Promise((resolve) => {
    client.onclose = resolve;
  });
}

/**
 * Checks a connector's `maxMessageBytes`.
 *
 * @throws {ToolError} `invalid_config` unless it is absent or a positive integer.
 */
export function checkMaxMessageBytes(value: number | undefined): void {
  if (value !== undefined) {
    checkCount(value, 'maxMessageBytes', { unit: 'bytes', code: 'invalid_config' });
  }
}

/** The URL and headers of an HTTP source, checked. */
export function httpTarget(source: HttpSource | string | URL): HttpTarget {
  const spec = typeof source === 'string' || source instanceof URL ? { url: source } : source;
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch (error) {
    throw new ToolError(
      'invalid_config',
      `MCP server URL ${JSON.stringify(String(spec.url))} is not a URL`,
      { cause: error },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError('invalid_config', `MCP server URL must be http(s), got ${url.protocol}`);
  }
  const headers: Record<string, string> = { ...spec.headers };
  if ('token' in spec && spec.token !== undefined) headers.Authorization = `Bearer ${spec.token}`;
  return { url, headers };
}

/**
 * What a source can be named by: an HTTP server by its URL (normalised), a stdio server by its
 * command line, and by its command alone.
 */
export function sourceKeys(source: string | ConnectorSource): string[] {
  if (typeof source !== 'string' && isStdio(source)) {
    const line = [source.command, ...(source.args ?? [])].join(' ');
    return line === source.command ? [line] : [line, source.command];
  }
  const url = typeof source === 'string' || source instanceof URL ? source : source.url;
  try {
    return [new URL(url).href];
  } catch {
    // Not a URL: a command line given as text.
    return [String(url)];
  }
}
