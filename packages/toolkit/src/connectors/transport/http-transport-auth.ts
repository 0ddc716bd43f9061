import { header, type Answer } from './http-agent.js';
import type { TransportAuth } from './http-transport-parts.js';

/**
 * Sends a POST with the OAuth client's `Authorization` (none without `auth`), and, when the
 * server refuses it (401 or 403), hands the refusal to the OAuth client and sends once more if it
 * says so. A retry refused with 401 again goes to the OAuth client too: the token it just fetched
 * is refused, which it says (and fetches no other at once) rather than leave a bare 401.
 */
export async function postAuthorized(
  auth: TransportAuth | undefined,
  send: (authorization: string | undefined) => Promise<Answer>,
): Promise<Answer> {
  if (auth === undefined) return send(undefined);
  const first = await sendWith(auth, send);
  if (!isAuthRefusal(first.answer.statusCode)) return first.answer;
  const again = await refused(auth, first.answer, first.authorization);
  if (!again) return first.answer;
  await first.answer.body.dump();
  const retried = await sendWith(auth, send);
  if (retried.answer.statusCode === 401) await refused(auth, retried.answer, retried.authorization);
  return retried.answer;
}

/** One request with the current `Authorization`; an answer other than 401/403 accepts it. */
async function sendWith(
  auth: TransportAuth,
  send: (authorization: string | undefined) => Promise<Answer>,
): Promise<{ answer: Answer; authorization: string | undefined }> {
  const authorization = await auth.authorization();
  const answer = await send(authorization);
  if (!isAuthRefusal(answer.statusCode)) auth.accepted?.(authorization);
  return { answer, authorization };
}

/** Hands a 401 or 403 to the OAuth client; the answer's body is dumped when that throws. */
async function refused(
  auth: TransportAuth,
  answer: Answer,
  authorization: string | undefined,
): Promise<boolean> {
  const status = answer.statusCode as 401 | 403;
  const wwwAuthenticate = header(answer.headers, 'www-authenticate');
  return auth.refused({ status, wwwAuthenticate, authorization }).catch(async (error: unknown) => {
    await answer.body.dump();
    throw error;
  });
}

function isAuthRefusal(status: number): status is 401 | 403 {
  return status === 401 || status === 403;
}
