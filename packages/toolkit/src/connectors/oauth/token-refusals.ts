import { ToolError } from '@toolplane/toolmodel';
import { withoutSecrets } from './oauth-messages.js';

// A server that refuses every token (an audience it does not expect, a client it revoked) must
// not turn each reconnect of the connector's backoff into a token request: a token just issued
// and refused is kept until a fresh one could help, and the refusal is said as such.

/** The first wait before a token refused as soon as it was issued is replaced. */
const FIRST_WAIT_MS = 30_000;
/** The longest wait: the server's configuration may have been fixed meanwhile. */
const LONGEST_WAIT_MS = 10 * 60_000;

/** What a 401's `WWW-Authenticate` challenge says of the refusal. */
export interface RefusalChallenge {
  readonly error?: string | undefined;
  readonly errorDescription?: string | undefined;
}

/**
 * The access tokens a connector fetched and has not yet seen accepted, and how long to wait
 * before fetching another when one of them is refused: doubling from 30 s up to 10 minutes for
 * each such token in a row, and reset once a token is accepted.
 */
export class TokenRefusals {
  /** The header value of the token fetched last, until a request carrying it is accepted. */
  #unproven: string | undefined;
  /** How many tokens in a row were refused as soon as they were issued. */
  #streak = 0;
  #nextFetchAt = 0;

  /** A token was just fetched; `authorization` is its header value. */
  fetched(authorization: string | undefined): void {
    this.#unproven = authorization;
  }

  /** A request carrying `authorization` was accepted: tokens are fetched as usual again. */
  accepted(authorization: string | undefined): void {
    if (authorization === undefined || authorization !== this.#unproven) return;
    this.#unproven = undefined;
    this.#streak = 0;
    this.#nextFetchAt = 0;
  }

  /**
   * Whether the refused request carried (`sent`) a token fetched for it that no request got
   * through with yet, and fetching another must wait: the error to fail with then, its server's
   * words cut to size and without the `secrets`; else `undefined` (a token that worked before, or
   * the wait is over: fetch one).
   */
  check(
    server: string,
    sent: string | undefined,
    challenge: RefusalChallenge,
    secrets: readonly string[],
  ): ToolError | undefined {
    if (sent === undefined || sent !== this.#unproven) return undefined;
    const now = Date.now();
    if (now >= this.#nextFetchAt && this.#streak > 0) {
      // The wait is over: one more token, and a longer wait should it be refused too.
      this.#nextFetchAt = now + this.#wait();
      this.#streak++;
      return undefined;
    }
    if (this.#streak === 0) {
      this.#streak = 1;
      this.#nextFetchAt = now + FIRST_WAIT_MS;
    }
    const seconds = Math.ceil((this.#nextFetchAt - now) / 1000);
    const { error, errorDescription } = challenge;
    const said =
      error === undefined
        ? 'no error named'
        : `${error.slice(0, 64)}${errorDescription === undefined ? '' : `: ${JSON.stringify(errorDescription.slice(0, 200))}`}`;
    return new ToolError(
      'forbidden',
      `MCP server "${server}" refuses the access token just issued for it (HTTP 401, ${withoutSecrets(said, secrets)}): check the audience (resource) the server expects and the client's grant at the authorization server; the same token is tried again at each reconnect, a new one is fetched in ${String(seconds)} s`,
    );
  }

  #wait(): number {
    return Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(this.#streak, 10));
  }
}
