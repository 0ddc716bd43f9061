import type { ToolBackend } from './backend-types.js';

/**
 * Every machine-readable error code of the toolplane family, across all layers.
 *
 * Codes are only ever added; a code's meaning never changes.
 */
export type ToolErrorCode =
  // toolmodel
  | 'invalid_tool_id'
  | 'invalid_tool'
  | 'invalid_backend'
  | 'invalid_schema'
  | 'unsupported_schema'
  | 'invalid_argument'
  // toolindex
  | 'tool_not_found'
  | 'conflict'
  | 'invalid_cursor'
  // toolrun
  | 'no_backends'
  | 'validation'
  | 'execution'
  | 'output_validation'
  | 'stream_not_supported'
  | 'cancelled'
  | 'timeout'
  | 'rate_limited'
  | 'circuit_open'
  // a call that needs a person's approval and did not get it (declined, cancelled, timed out, or no
  // one could be asked): allow it the way the message says, or ask again
  | 'approval_denied'
  // toolkit
  | 'not_found'
  | 'no_delegate'
  | 'call_depth_exceeded'
  | 'connector_unavailable'
  | 'invalid_prompt'
  | 'invalid_resource'
  | 'invalid_config'
  | 'store_error'
  // a message from an upstream server over the connector's maxMessageBytes
  | 'message_too_large'
  | 'internal'
  // work a call asked for that would pass a bound (an answer's size, a sandbox's memory, calls,
  // logs or result): ask for less
  | 'resource_exhausted'
  // adapters
  | 'step_limit_exceeded'
  // authorization: no usable credentials, or credentials that do not reach the thing asked for
  | 'unauthorized'
  | 'forbidden'
  // pinning: a tool whose server changed its definition since it was pinned, withheld until a
  // person accepts the change
  | 'tool_changed';

/** The stage of a tool call an error came from. */
export type ToolOperation =
  'resolve' | 'select' | 'validate_input' | 'execute' | 'normalize' | 'validate_output';

/** One JSON Schema violation, as reported by a {@link SchemaValidator}. */
export interface SchemaValidationError {
  /** JSON Pointer to the offending value (`''` for the value itself, `/items/0/name` below it). */
  readonly path: string;
  /** The schema keyword that failed (`required`, `type`, `additionalProperties`, ...). */
  readonly keyword: string;
  /** What was wrong, in words a person can act on. */
  readonly message: string;
}

/**
 * `key` as one reference token of a JSON Pointer (RFC 6901), `~` written `~0` and `/` written
 * `~1`: `pointerToken('a/b')` is `a~1b`, so `/properties/${pointerToken(name)}` names any key.
 */
export function pointerToken(key: string | number): string {
  return String(key).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Options accepted by the {@link ToolError} constructor. */
export interface ToolErrorOptions {
  /** The underlying error, kept as `error.cause`. */
  readonly cause?: unknown;
  /** Canonical ID of the tool involved, when there is one. */
  readonly toolId?: string;
  /** The backend the call was bound to, when one was selected. */
  readonly backend?: ToolBackend;
  /** The pipeline stage that failed. */
  readonly op?: ToolOperation;
  /** Schema violations, for `validation`, `output_validation` and `invalid_tool` errors. */
  readonly errors?: readonly SchemaValidationError[];
}

/** The plain-JSON form of a {@link ToolError}, e.g. for an MCP `structuredContent` payload. */
export interface ToolErrorJson {
  code: ToolErrorCode;
  message: string;
  toolId?: string;
  op?: ToolOperation;
  backend?: ToolBackend;
  errors?: SchemaValidationError[];
}

const marker = Symbol.for('@toolplane/ToolError');

/**
 * The one error class of the toolplane family: every failure in every layer is a `ToolError`
 * with a machine-readable {@link ToolErrorCode}.
 *
 * Use {@link ToolError.isInstance} rather than `instanceof`: it also recognises errors thrown by
 * another installed copy of this package.
 */
export class ToolError extends Error {
  override name = 'ToolError';
  readonly code: ToolErrorCode;
  readonly toolId?: string;
  readonly backend?: ToolBackend;
  readonly op?: ToolOperation;
  readonly errors?: readonly SchemaValidationError[];

  constructor(code: ToolErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.toolId !== undefined) this.toolId = options.toolId;
    if (options.backend !== undefined) this.backend = options.backend;
    if (options.op !== undefined) this.op = options.op;
    if (options.errors !== undefined) this.errors = options.errors;
  }

  /** True for any `ToolError`, including one created by a different copy of this package. */
  static isInstance(value: unknown): value is ToolError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[marker] === true
    );
  }

  /** The error as plain JSON: code, message and whichever context fields are set. */
  toJSON(): ToolErrorJson {
    const json: ToolErrorJson = { code: this.code, message: this.message };
    if (this.toolId !== undefined) json.toolId = this.toolId;
    if (this.op !== undefined) json.op = this.op;
    if (this.backend !== undefined) json.backend = this.backend;
    if (this.errors !== undefined) json.errors = [...this.errors];
    return json;
  }
}

Object.defineProperty(ToolError.prototype, marker, { value: true });

/**
 * A promise rejected with `error`, for a method that answers with a promise and found a problem
 * before it began: the caller sees the error where it sees every other, never as a throw.
 */
// eslint-disable-next-line @typescript-eslint/require-await -- async is how it rejects
export async function rejectedWith(error: unknown): Promise<never> {
  throw error;
}
