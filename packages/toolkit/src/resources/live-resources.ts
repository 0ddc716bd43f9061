import { checkDuration, optionKeys, ToolError } from '@toolplane/toolmodel';
import {
  checkResourceOptions,
  dataResource,
  RESOURCE_OPTION_KEYS,
  textResource,
  validateResource,
  validateResourceInfo,
  type Resource,
  type ResourceInfo,
  type ResourceOptions,
} from './resources.js';

/** What a {@link LiveResource}'s `read` may answer: text, bytes, or a resource built whole. */
export type LiveContents = string | Uint8Array | Resource;

/**
 * A builtin resource read anew on every `resources/read` (a live reading: a clock, a queue's
 * depth, a file as it is now), listed by what it says of itself. Build one with
 * {@link liveResource}.
 */
export interface LiveResource extends ResourceInfo {
  /**
   * Reads the contents now. The signal aborts when the reader goes away or the read takes longer
   * than `timeoutMs`. Text is served as `mimeType` (default `text/plain`), bytes as `mimeType` or
   * what their content shows; a resource's contents are served under this one's URI and name.
   */
  readonly read: (signal: AbortSignal) => LiveContents | Promise<LiveContents>;
  /** How long one read may take. Default {@link LIVE_READ_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
}

/** Options for {@link liveResource}. */
export interface LiveResourceOptions extends ResourceOptions {
  /** How long one read may take. Default {@link LIVE_READ_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
}

const LIVE_RESOURCE_KEYS = [
  ...RESOURCE_OPTION_KEYS,
  ...optionKeys<Omit<LiveResourceOptions, keyof ResourceOptions>>({ timeoutMs: true }),
];

/** How long a live resource's read may take unless it says otherwise (10 s). */
export const LIVE_READ_TIMEOUT_MS = 10_000;

/**
 * Builds a resource whose contents `read` produces on every read, within `timeoutMs`.
 *
 * @throws {ToolError} `invalid_resource` for a bad name, URI, option or timeout, or a `read` that
 * is not a function.
 */
export function liveResource(
  name: string,
  read: LiveResource['read'],
  options: LiveResourceOptions = {},
): LiveResource {
  // A misspelt `timeoutMs` would leave a slow read the default bound, and say nothing.
  checkResourceOptions(options, LIVE_RESOURCE_KEYS, 'liveResource');
  const { timeoutMs, ...rest } = options;
  return validateLiveResource({
    uri: `toolplane://resources/${name}`,
    ...rest,
    name,
    read,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

/** Whether `value` is a live resource (it has a `read` function) rather than one with contents. */
export function isLiveResource(value: unknown): value is LiveResource {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { read?: unknown }).read === 'function'
  );
}

/**
 * Checks a live resource as {@link validateResourceInfo} does, with its `read` and `timeoutMs`.
 *
 * @throws {ToolError} `invalid_resource`.
 */
export function validateLiveResource(value: unknown): LiveResource {
  const info = validateResourceInfo(value);
  const { read, timeoutMs } = value as Partial<LiveResource>;
  const where = `resource ${JSON.stringify(info.name)}`;
  if (typeof read !== 'function') {
    throw new ToolError('invalid_resource', `${where}: read must be a function`);
  }
  // A bound past what a timer keeps (2^31 − 1 ms) would end every read at once.
  if (timeoutMs !== undefined) {
    checkDuration(timeoutMs, `${where}: timeoutMs`, { code: 'invalid_resource' });
  }
  return { ...info, read, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
}

/**
 * Reads a live resource now, as a resource with contents.
 *
 * @throws {ToolError} `cancelled` when `signal` aborts, `timeout` past its `timeoutMs`,
 * `invalid_resource` for contents that are not text, bytes or a resource (or are too large),
 * `execution` when `read` throws.
 */
export async function readLive(live: LiveResource, signal?: AbortSignal): Promise<Resource> {
  const limit = live.timeoutMs ?? LIVE_READ_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(limit);
  const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
  const where = `resource "${live.uri}"`;
  const stopped = (): ToolError =>
    timeout.aborted
      ? new ToolError('timeout', `reading ${where} took longer than ${limit} ms`)
      : new ToolError('cancelled', `reading ${where} was cancelled`, { cause: signal?.reason });
  if (combined.aborted) throw stopped();
  let stop: (error: ToolError) => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = reject;
  });
  const onAbort = (): void => {
    stop(stopped());
  };
  combined.addEventListener('abort', onAbort, { once: true });
  try {
    // A read that ignores its signal still ends the wait.
    const contents = await Promise.race([
      Promise.resolve().then(() => live.read(combined)),
      aborted,
    ]);
    return await served(live, contents);
  } catch (error) {
    if (ToolError.isInstance(error)) throw error;
    // A read that gave up on its signal says so in its own words: ours are clearer.
    if (timeout.aborted || signal?.aborted === true) throw stopped();
    throw new ToolError(
      'execution',
      `reading ${where} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  } finally {
    combined.removeEventListener('abort', onAbort);
  }
}

async function served(live: LiveResource, contents: LiveContents): Promise<Resource> {
  const { read: _read, timeoutMs: _timeout, ...info } = live;
  const options = {
    uri: info.uri,
    ...(info.title === undefined ? {} : { title: info.title }),
    ...(info.description === undefined ? {} : { description: info.description }),
    ...(info.mimeType === undefined ? {} : { mimeType: info.mimeType }),
  };
  if (typeof contents === 'string') return textResource(info.name, contents, options);
  if (contents instanceof Uint8Array) return dataResource(info.name, contents, options);
  if (typeof contents === 'object' && (contents as Partial<Resource>).uri !== undefined) {
    const { text, blob, mimeType } = contents;
    return validateResource({
      ...info,
      ...(mimeType === undefined ? {} : { mimeType }),
      ...(text === undefined ? { blob } : { text }),
    });
  }
  throw new ToolError(
    'invalid_resource',
    `resource "${live.uri}": read must answer text, bytes or a resource`,
  );
}
