import { OAuthError } from '@modelcontextprotocol/client';

// What a connector's OAuth client says of a failure: the words come partly from servers, so they
// are bounded, and the secrets a server may repeat are cut out.

/**
 * A failure of the SDK's `auth()` in a sentence: an OAuth error's code and description, a schema
 * failure of a document as the members it lacks, an answer that is not JSON as such; `last` is
 * the request it came from (`METHOD origin/path`).
 */
export function describe(error: unknown, last: string | undefined): string {
  if (error instanceof OAuthError) return `${error.code}: ${error.message}`.slice(0, 300);
  const issues = (error as { issues?: unknown } | undefined)?.issues;
  if (Array.isArray(issues)) {
    // A schema failure of a document the server sent: name the request and the members, not a
    // dump of the validator's issues.
    const members = issues
      .slice(0, 5)
      .map(
        (issue: { path?: unknown[]; message?: string }) =>
          `${(issue.path ?? []).map(String).join('.') || '(document)'}: ${String(issue.message)}`,
      )
      .join('; ');
    return `the answer to ${last ?? 'a request'} is not valid: ${members}`.slice(0, 300);
  }
  if (error instanceof SyntaxError) return `the answer to ${last ?? 'a request'} is not JSON`;
  return error instanceof Error ? error.message.slice(0, 300) : 'unknown error';
}

/** `text` with every occurrence of each secret replaced by `[redacted]`. */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) clean = clean.replaceAll(secret, '[redacted]');
  return clean;
}

/**
 * A scope a server's challenge names, when it is one: space-separated RFC 6749 §3.3 scope tokens
 * (printable ASCII but `"` and `\\`), at most 64 of them and 2,048 characters; else `undefined`.
 */
export function scopeHint(scope: string | undefined): string | undefined {
  if (scope === undefined || scope.length > 2_048) return undefined;
  const tokens = scope.split(' ').filter((token) => token !== '');
  const valid =
    tokens.length <= 64 && tokens.every((token) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(token));
  return valid && tokens.length > 0 ? scope : undefined;
}
