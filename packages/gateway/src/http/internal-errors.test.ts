import { createToolkit, type Logger } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpGateway } from './serve.js';

// What a route's own failure could say: a connection string with its password.
const INSIDE = 'connect ECONNREFUSED postgres://gateway:hunter2@10.1.2.3:5432/toolplane';

describe('serveHttp, a route that fails with an error that is not a ToolError', () => {
  const toolkit = createToolkit();
  const logged: { message: string; data: Record<string, unknown> | undefined }[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (message, data) => {
      logged.push({ message, data });
    },
  };
  let gateway: HttpGateway;

  beforeAll(async () => {
    gateway = await serveHttp(toolkit, {
      port: 0,
      token: 'internal-errors-token-0123456789',
      logger,
      routes: [{ path: '/report', handle: () => Promise.reject(new Error(INSIDE)) }],
    });
  });
  afterAll(async () => {
    await gateway.close();
    await toolkit.close();
  });

  it('answers 500 without its message, and logs the message with the path', async () => {
    const response = await fetch(new URL('/report/today', gateway.url));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('10.1.2.3');
    expect(logged).toEqual([
      {
        message: expect.stringContaining('GET /report/today') as string,
        data: expect.objectContaining({ error: INSIDE }) as Record<string, unknown>,
      },
    ]);
    // The gateway serves on.
    expect((await fetch(new URL('/healthz', gateway.url))).status).toBe(200);
  });
});
