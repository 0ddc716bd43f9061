import { defineTool, timeout, ToolError } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardGateway, type DashboardGateway } from '../testing/dashboard-gateway.js';
import { loginCookie } from '../testing/login.js';

const TOKEN = 'dashboard-call-errors-token-0123456789';

interface Answer {
  readonly status: number;
  readonly body: { error?: { code: string; message: string } };
}

// What the JSON API answers a try-it call that fails: a 4xx only when the request itself was
// wrong, a 5xx when the tool, the server behind it or the gateway failed (a script calling the
// API retries or gives up by the status; a 400 tells it to mend a request that was fine).
describe('the status of a failed try-it call', () => {
  let served: DashboardGateway;
  let cookie: string;

  const call = async (tool: string, args: Record<string, unknown>): Promise<Answer> => {
    const response = await fetch(new URL('api/call', served.ui), {
      method: 'POST',
      headers: { cookie, origin: served.ui.origin, 'content-type': 'application/json' },
      body: JSON.stringify({ tool, arguments: args }),
    });
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  };

  beforeAll(async () => {
    served = await startDashboardGateway(TOKEN, {
      middleware: [timeout(500)],
      tools: [
        defineTool({
          name: 'broken',
          description: 'Fails as a bug in the gateway would.',
          input: { type: 'object' },
          run: () => {
            throw new ToolError('internal', 'the broken tool broke');
          },
        }),
      ],
    });
    cookie = await loginCookie(served.ui, TOKEN);
  });
  afterAll(async () => {
    await served.close();
  });

  it('is 502 for a tool of the upstream server that fails, with its message intact', async () => {
    const answer = await call('fixture:fail', { message: 'the disk is full' });
    expect(answer).toMatchObject({
      status: 502,
      body: { error: { code: 'execution', message: 'the disk is full' } },
    });
  });

  it('is 504 for a call that runs past its timeout', async () => {
    const answer = await call('fixture:slow', { ms: 60_000, label: 'past-timeout' });
    expect(answer).toMatchObject({ status: 504, body: { error: { code: 'timeout' } } });
    expect(answer.body.error?.message).toContain('did not finish within 500 ms');
  });

  it("is 500 for the gateway's own tool failing", async () => {
    const answer = await call('builtin:broken', {});
    expect(answer).toMatchObject({
      status: 500,
      body: { error: { message: 'the broken tool broke' } },
    });
  });

  it('is still 400 for arguments the schema refuses, and 404 for an unknown tool', async () => {
    expect(await call('fixture:add', { a: 'one', b: 2 })).toMatchObject({
      status: 400,
      body: { error: { code: 'validation' } },
    });
    expect(await call('fixture:no-such-tool', {})).toMatchObject({
      status: 404,
      body: { error: { code: 'tool_not_found' } },
    });
  });
});
