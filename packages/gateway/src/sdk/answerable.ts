import { ProtocolErrorCode } from '@modelcontextprotocol/server';

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * The schema issues a failed params check carries. The SDK checks a request against its era's
 * zod schema and throws a plain `Error` whose message is the issues as JSON (no code: the client
 * would see -32603 and a dump).
 */
function issuesOf(error: Error): readonly Issue[] | undefined {
  const listed = (error as Error & { issues?: unknown }).issues;
  let value: unknown = listed;
  if (value === undefined && error.message.startsWith('[')) {
    try {
      value = JSON.parse(error.message);
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const all = value as unknown[];
  return all.every(
    (issue) =>
      typeof issue === 'object' &&
      issue !== null &&
      Array.isArray((issue as Issue).path) &&
      typeof (issue as Issue).message === 'string',
  )
    ? (all as Issue[])
    : undefined;
}

/**
 * A handler's failure as the client should read it: a request whose params the SDK refused is
 * -32602 (invalid params) with one line naming the first problem, not -32603 with a dump.
 */
export function answerable(error: unknown, method: string): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  if (typeof (error as Error & { code?: unknown }).code === 'number') return error;
  const issues = issuesOf(error);
  const first = issues?.[0];
  if (issues === undefined || first === undefined) return error;
  const path = first.path.map(String).join('.');
  const more = issues.length > 1 ? ` (and ${String(issues.length - 1)} more)` : '';
  return new JsonRpcError(
    ProtocolErrorCode.InvalidParams,
    `${method}: ${path === '' ? 'the request' : path}: ${first.message}${more}`,
  );
}

/** A JSON-RPC error answer whose message is sent as it is. */
class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
