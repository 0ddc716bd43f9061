import { callModernMessages } from '@toolplane/fixtures';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { useHttpGateway } from './testing/http-gateway.js';

// A 2026-07-28 client has no session stream: an upstream's log messages reach it on the stream
// of its own call to that server, at the level its request's _meta names, as they would straight
// from the server.

const gateway = useHttpGateway(useFixtureToolkit());

/** Every message of a 2026-07-28 `tools/call` answer, in order, with `logLevel` in its `_meta`. */
function call(name: string, args: object, logLevel: string | undefined) {
  return callModernMessages(gateway.url, name, args, {
    capabilities: {},
    meta: logLevel === undefined ? {} : { 'io.modelcontextprotocol/logLevel': logLevel },
  });
}

describe("an upstream's log messages during a 2026-07-28 call", () => {
  it('come before the result on the call’s stream, at the level asked for', async () => {
    const messages = await call('fx__log', { message: 'hello', level: 'warning' }, 'info');
    expect(messages.map((message) => message.method ?? 'answer')).toEqual([
      'notifications/message',
      'answer',
    ]);
    expect(messages[0]?.params).toEqual({ level: 'warning', logger: 'fx/fixture', data: 'hello' });
  });

  it('stay away below the level asked for, and without one', async () => {
    for (const level of ['error', undefined]) {
      const messages = await call('fx__log', { message: 'quiet', level: 'warning' }, level);
      expect(messages.map((message) => message.method ?? 'answer')).toEqual(['answer']);
    }
  });
});
