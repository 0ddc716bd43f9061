import { createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeWith } from '../testing/raw-client.js';
import { serveHttp, type HttpGateway } from './serve.js';

// The forms of the Authorization header a static bearer token is judged on, over real HTTP:
// the scheme is case-insensitive and may be followed by several spaces (RFC 9110 §11.1), and a
// request with two Authorization headers is refused whichever of them holds the token.

let running: RunningToolkit;
let gateway: HttpGateway;

beforeAll(async () => {
  running = await runToolkit(createToolkit({}));
  gateway = await serveHttp(running.toolkit, { port: 0, token: 'static-secret' });
});

afterAll(async () => {
  await gateway.close();
  await running.stop();
});

const initialize = (authorization: string | string[]) =>
  initializeWith(gateway.url, { authorization });

describe('serveHttp with a static token: the Authorization header', () => {
  it.each([['Bearer static-secret'], ['bearer static-secret'], ['BEARER  static-secret']])(
    'accepts %j',
    async (header) => {
      expect((await initialize(header)).status).toBe(200);
    },
  );

  it.each([
    ['another scheme', 'Basic static-secret'],
    ['no space', 'Bearerstatic-secret'],
    ['a longer token', 'Bearer static-secret2'],
    ['the bare token', 'static-secret'],
  ])('refuses %s with 401 and a Bearer challenge', async (_, header) => {
    expect(await initialize(header)).toEqual({ status: 401, www: 'Bearer' });
  });

  it('refuses two Authorization headers, the token in either', async () => {
    for (const headers of [
      ['Bearer static-secret', 'Bearer other'],
      ['Bearer other', 'Bearer static-secret'],
      ['Bearer static-secret', 'Bearer static-secret'],
    ]) {
      expect((await initialize(headers)).status).toBe(401);
    }
  });
});
