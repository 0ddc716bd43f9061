import type { ConnectorSource, OAuthCredentialWatch } from '../connector-types.js';

/** How often a connector in `auth_required` looks for new tokens, by default. */
export const DEFAULT_AUTH_RECHECK_MS = 2000;

/**
 * Calls `onLogin` once the stored tokens of `source`'s OAuth client change (a login made
 * elsewhere, `toolplane auth login` in another process), looking every `everyMs`; one store read
 * at a time, never a request to a server. Returns the timer to clear, or `undefined` when the
 * source has no such client or `everyMs` is 0.
 */
export function watchForLogin(
  source: ConnectorSource,
  everyMs: number,
  onLogin: () => void,
): NodeJS.Timeout | undefined {
  const oauth: OAuthCredentialWatch | undefined =
    typeof source === 'object' && 'url' in source ? source.oauth : undefined;
  if (oauth?.changedElsewhere === undefined || everyMs <= 0) return undefined;
  let looking = false;
  return setInterval(() => {
    if (looking) return;
    looking = true;
    oauth
      .changedElsewhere?.()
      .then((changed) => {
        if (changed) onLogin();
      })
      // An unreadable store counts as unchanged: the next look tries again.
      .catch(() => undefined)
      .finally(() => (looking = false));
  }, everyMs).unref();
}
