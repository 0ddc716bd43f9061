import { ToolError, type ToolErrorCode } from '@toolplane/toolkit';

// Every code decides its status here, so a code added to the family is a type error until it is
// placed. 4xx: the request can be mended by whoever sent it; 5xx: the gateway, or a server or
// store behind it, failed, and the same request may succeed later. The dashboard's own login and
// origin refusals are UiErrors with their status; a ToolError `unauthorized` or `forbidden` here
// is an upstream server refusing the gateway's credentials, never the operator's session (a 401
// would make the page ask the operator to log in again).
const STATUS: Record<ToolErrorCode, number> = {
  invalid_tool_id: 400,
  invalid_argument: 400,
  invalid_cursor: 400,
  invalid_prompt: 400,
  invalid_resource: 400,
  validation: 400,
  stream_not_supported: 400,
  resource_exhausted: 400,
  approval_denied: 403,
  tool_not_found: 404,
  not_found: 404,
  conflict: 409,
  tool_changed: 409,
  rate_limited: 429,
  internal: 500,
  invalid_config: 500,
  invalid_backend: 500,
  no_backends: 500,
  call_depth_exceeded: 500,
  step_limit_exceeded: 500,
  no_delegate: 501,
  execution: 502,
  output_validation: 502,
  invalid_tool: 502,
  invalid_schema: 502,
  unsupported_schema: 502,
  message_too_large: 502,
  unauthorized: 502,
  forbidden: 502,
  connector_unavailable: 503,
  circuit_open: 503,
  store_error: 503,
  cancelled: 503,
  timeout: 504,
};

/** JSON-RPC's InvalidParams: what an MCP server answers a call whose arguments it refuses. */
const INVALID_PARAMS = -32602;

/**
 * The HTTP status of a failure the dashboard's JSON API answers with its `ToolError` code. A
 * tool's failure (`execution`) is 502 for a tool on another server and 500 for one of the
 * gateway's own, unless what it wraps says more: a refusal of the arguments (an MCP server's
 * InvalidParams, a `validation`) is 400, and any other code the tool threw keeps its own status.
 */
export function statusOf(error: ToolError): number {
  if (error.code === 'execution') {
    const cause: unknown = error.cause;
    if (ToolError.isInstance(cause) && cause.code !== 'execution') return STATUS[cause.code];
    if (cause instanceof Error && (cause as Error & { code?: unknown }).code === INVALID_PARAMS) {
      return 400;
    }
    return error.backend === undefined || error.backend.kind === 'local' ? 500 : 502;
  }
  return STATUS[error.code];
}
