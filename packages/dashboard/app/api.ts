// The dashboard API as the pages call it: same origin, the session cookie sent by the browser.

/** An API failure, with the server's `ToolError` code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** GET or POST (JSON) `api/<route>`; rejects with an {@link ApiError}. */
export async function api<T>(route: string, body?: unknown): Promise<T> {
  const response = await fetch(`api/${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await response.json().catch(() => ({}))) as {
    error?: { code?: string; message?: string };
  };
  if (!response.ok) {
    throw new ApiError(
      response.status,
      data.error?.code ?? 'internal',
      data.error?.message ?? `HTTP ${String(response.status)}`,
    );
  }
  return data as T;
}

export interface Connector {
  namespace: string;
  state: string;
  error?: string;
  pid?: number;
  era?: string;
}
export interface ToolSummary {
  id: string;
  namespace?: string;
  name: string;
  description: string;
}
export interface ToolDetail extends ToolSummary {
  title?: string;
  inputSchema: JsonSchema;
}
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  description?: string;
  default?: unknown;
  title?: string;
}
export interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
}
export interface CallAnswer {
  tool: string;
  isError: boolean;
  content: ContentBlock[];
  structured?: unknown;
}
/** A question a try-it call asks its operator (the approval policy's, or a tool's own). */
export interface CallQuestion {
  id: string;
  message: string;
  requestedSchema: JsonSchema;
  /** Asked by the approval policy before the call runs: accepting it runs the call. */
  approval: boolean;
}
/** What `api/call` and `api/answer` answer: the call's result, or its question. */
export type CallStep = CallAnswer | { tool: string; question: CallQuestion };
export interface CallEntry {
  id: number;
  tool: string;
  startedAt: number;
  durationMs?: number;
  outcome?: string;
  progress?: { progress: number; total?: number; message?: string };
  /** Set while a person is asked to approve the call. */
  waiting?: 'approval';
}
export interface MinuteStats {
  t: number;
  calls: number;
  errors: number;
  p50: number | null;
  p95: number | null;
}
/** A pending pin change as `api/changes` answers it; `diff` is `describePinChange`'s text. */
export interface PinChangeView {
  id: string;
  namespace: string;
  tool: string;
  seenAt: number;
  fields: string[];
  pinned: string;
  /** The fingerprint of the definition shown, which the Accept button sends. */
  current: string;
  diff: string;
  accept: string;
}
