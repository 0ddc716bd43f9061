import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createResourceServer } from '@toolplane/oauth';
import { createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpGateway } from '../http/serve.js';
import { INITIALIZE_BODY, POST_HEADERS } from '../testing/raw-client.js';

// An authorization server that is down (every discovery URL answers 500): the gateway answers
// 503 and says, in Retry-After, when it will ask the issuer again, not a blanket second.

let issuer: Server;
let issuerUrl: string;
let asked = 0;
let running: RunningToolkit;
let gateway: HttpGateway;

beforeAll(async () => {
  issuer = createServer((req, res) => {
    asked++;
    req.resume();
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => issuer.listen(0, '127.0.0.1', resolve));
  issuerUrl = `http://127.0.0.1:${String((issuer.address() as AddressInfo).port)}`;
  running = await runToolkit(createToolkit());
  gateway = await serveHttp(running.toolkit, {
    port: 0,
    auth: createResourceServer({ issuer: issuerUrl }),
  });
});

afterAll(async () => {
  await gateway.close();
  await running.stop();
  issuer.closeAllConnections();
  await new Promise<void>((resolve) => {
    issuer.close(() => {
      resolve();
    });
  });
});

/** A token shaped like a JWT of the issuer: checking it needs the issuer's key set. */
function jwtShaped(): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return [
    part({ alg: 'RS256', typ: 'at+jwt', kid: 'k1' }),
    part({ iss: issuerUrl, sub: 'alice', aud: gateway.url.href, iat: now, exp: now + 300 }),
    'c2lnbmF0dXJl',
  ].join('.');
}

async function initialize(): Promise<Response> {
  return fetch(gateway.url, {
    method: 'POST',
    headers: { ...POST_HEADERS, authorization: `Bearer ${jwtShaped()}` },
    body: INITIALIZE_BODY,
  });
}

describe('serveHttp with auth: an authorization server that cannot be asked', () => {
  it('answers 503 with the backoff left in Retry-After, and asks the issuer once for both', async () => {
    const first = await initialize();
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('5');
    await first.text();
    const askedOnce = asked;
    expect(askedOnce).toBeGreaterThan(0);
    const second = await initialize();
    expect(second.status).toBe(503);
    const retryAfter = Number(second.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 5).toBe(true);
    await second.text();
    expect(asked).toBe(askedOnce);
  });
});
