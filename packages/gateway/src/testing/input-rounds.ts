// A raw 2026-07-28 client's view of the gateway's input rounds, for the tests of multi-round
// calls: the call and its retries, the round an answer asks, and the text of a final answer.
import { callModern, type ModernAnswer } from '@toolplane/fixtures';
import type { HttpGateway } from '../http/serve.js';

/** A raw 2026 tools/call to `gateway`; retries carry `requestState` and `inputResponses`. */
export const callRound = (
  gateway: Pick<HttpGateway, 'url'>,
  name: string,
  args: object,
  retry: object = {},
): Promise<ModernAnswer> => callModern(gateway.url, name, args, { params: retry });

/** The one round an answer asks: its key, method, message and the state to send back. */
export function roundOf(answer: ModernAnswer): {
  key: string;
  method: string;
  message: string;
  state: string;
} {
  if (answer.result?.resultType !== 'input_required') {
    throw new Error(`not an input round: ${JSON.stringify(answer).slice(0, 400)}`);
  }
  const [[key, request] = ['', { method: '', params: {} }]] = Object.entries(
    answer.result.inputRequests ?? {},
  );
  return {
    key,
    method: request.method,
    message: request.params.message ?? '',
    state: answer.result.requestState ?? '',
  };
}

/** The text blocks of a final answer, joined. */
export const textOf = (answer: ModernAnswer): string =>
  answer.result?.content?.map((block) => block.text).join('') ?? '';
