// The options and small pieces of the Streamable HTTP client transport, apart from its class.
import { SdkErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { CONNECTION_CLOSED, type RequestId } from '@toolplane/toolmodel/wire';

// The answers a transport made up for requests it lost, told apart by identity: a server may
// send -32000 itself (JSON-RPC leaves the range to implementations), and what it sends is parsed
// into fresh objects that are never in here.
const lostAnswers = new WeakSet<object>();

/** The error answer a transport hands on for a request whose answer can no longer arrive. */
export function lostAnswer(id: RequestId, reason: string): JSONRPCMessage {
  const answer: JSONRPCMessage = {
    jsonrpc: '2.0',
    id,
    error: { code: CONNECTION_CLOSED, message: reason },
  };
  lostAnswers.add(answer);
  return answer;
}

/** Whether `answer` is one a transport made up for a lost request (see {@link lostAnswer}). */
export function isLostAnswer(answer: object): boolean {
  return lostAnswers.has(answer);
}

/** The SDK's code for a POST the server refused with `status`, as its own transport picks it. */
export function postFailureCode(status: number): SdkErrorCode {
  if (status === 401) return SdkErrorCode.ClientHttpAuthentication;
  if (status === 403) return SdkErrorCode.ClientHttpForbidden;
  return SdkErrorCode.ClientHttpNotImplemented;
}

/** Reconnection as the SDK's transport does it: 1 s, growing 1.5× a failed attempt, 2 attempts. */
export const RECONNECT = { initialMs: 1_000, maxMs: 30_000, growth: 1.5, maxRetries: 2 } as const;

/** Options of {@link StreamableHttpClientTransport}. */
export interface StreamableHttpClientTransportOptions {
  /** Headers sent with every request (authorization, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Hears every JSON-RPC request a server sends on the event stream answering a `tools/call`:
   * the call's JSON-RPC ID and the request's; how server requests are tied to calls.
   */
  readonly onRelatedRequest?: (callId: RequestId, requestId: RequestId) => void;
  /**
   * Hears what may mean the server or the session is gone, which the SDK's client would never
   * find out by itself: an event stream that broke, the session's GET stream ending or failing
   * to reopen, a resumption the server refused, an HTTP 404 for the session (the spec's word for
   * a session the server no longer knows), and, while no GET stream is open (a server without
   * one), the server closing a kept-alive connection after a request (once per request sent).
   */
  readonly onSessionDoubt?: (error: unknown) => void;
  /**
   * OAuth for a protected server (a `ConnectorOAuth`): its `Authorization` header goes with every
   * request (only to this transport's origin), and a POST's 401 or 403 goes to it once, the
   * request tried again when it says so.
   */
  readonly auth?: TransportAuth;
}

/** What the transport asks of an OAuth client; see {@link StreamableHttpClientTransportOptions.auth}. */
export interface TransportAuth {
  /** The `Authorization` header value for the next request; none when `undefined`. */
  authorization(): Promise<string | undefined>;
  /** Deals with a 401 or 403; resolves whether to try the request once more. */
  refused(refusal: {
    readonly status: 401 | 403;
    readonly wwwAuthenticate: string | undefined;
    /** The `Authorization` header value the refused request carried. */
    readonly authorization: string | undefined;
  }): Promise<boolean>;
  /** A request carrying `authorization` was answered with neither 401 nor 403. */
  accepted?(authorization: string | undefined): void;
}

/** What an event stream carries the answer to, and how it came to be read. */
export interface StreamContext {
  /** The request whose answer it carries; `undefined` for the session's own GET stream. */
  readonly requestId: RequestId | undefined;
  /** Set when the request is a `tools/call`, so the server's requests on it can be tied to it. */
  readonly callId: RequestId | undefined;
  /** The event ID this stream resumed from, if it is a resumption. */
  readonly resumedFrom: string | undefined;
  /** Rewrites the answer's ID (a request resumed with the SDK's `resumptionToken`). */
  readonly replayId: RequestId | undefined;
  /** Aborted when the caller gives the request up (2026-07-28 cancellation): no resumption. */
  readonly signal?: AbortSignal | undefined;
}
