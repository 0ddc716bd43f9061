// A test file's gateway over Streamable HTTP: most of the gateway's tests serve one toolkit (the
// stdio fixture as `fx`, from @toolplane/test-support's useFixtureToolkit) for all their cases.
import type { Toolkit } from '@toolplane/toolkit';
import { afterAll, beforeAll } from 'vitest';
import { serveHttp, type HttpGateway, type ServeHttpOptions } from '../http/serve.js';

/** What {@link useHttpGateway} reads of the gateway it serves, once its `beforeAll` has run. */
export type ServedHttpGateway = Pick<HttpGateway, 'url' | 'sessionCount'>;

/**
 * Serves `toolkit` over Streamable HTTP on a free port of 127.0.0.1 from the file's (or the
 * `describe` block's) `beforeAll` until its `afterAll`, with `options` but for the port. Call it
 * after the toolkit's own hooks are registered (`useFixtureToolkit`): vitest runs `afterAll`
 * hooks last-in first-out, so the gateway closes before the toolkit stops.
 */
export function useHttpGateway(
  toolkit: Toolkit,
  options: Omit<ServeHttpOptions, 'port'> = {},
): ServedHttpGateway {
  let served: HttpGateway | undefined;
  beforeAll(async () => {
    served = await serveHttp(toolkit, { ...options, port: 0 });
  });
  afterAll(async () => {
    await served?.close();
  });
  const current = (): HttpGateway => {
    if (served === undefined)
      throw new Error('the gateway is served from beforeAll: read it in a hook or a test');
    return served;
  };
  return {
    get url() {
      return current().url;
    },
    get sessionCount() {
      return current().sessionCount;
    },
  };
}
