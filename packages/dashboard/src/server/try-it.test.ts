import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardGateway, type DashboardGateway } from '../testing/dashboard-gateway.js';
import { loginCookie } from '../testing/login.js';
import { MAX_QUESTIONS_PER_LOGIN } from './try-it.js';

const TOKEN = 'dashboard-try-it-token-0123456789';

interface Step {
  readonly content?: { text?: string }[];
  readonly question?: { id: string; message: string; approval: boolean };
  readonly error?: { code: string; message: string };
}

// The try-it API's questions (an approval the policy asks before a call runs), answered by the
// operator who made the call, and by nobody else.
describe('questions of try-it calls', () => {
  let served: DashboardGateway;
  let cookie: string;
  let other: string;

  const post = async (route: string, body: unknown, as = cookie) => {
    const response = await fetch(new URL(`api/${route}`, served.ui), {
      method: 'POST',
      headers: { cookie: as, origin: served.ui.origin, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Step };
  };

  const ask = async (id: string): Promise<string> => {
    const asked = await post('call', { tool: 'fixture:delete-item', arguments: { id } });
    expect(asked.status).toBe(200);
    expect(asked.body.question?.approval).toBe(true);
    return asked.body.question?.id ?? '';
  };

  beforeAll(async () => {
    served = await startDashboardGateway(TOKEN, {
      approval: { destructive: false, tools: ['fixture:delete-item'], timeoutMs: 2_000 },
    });
    cookie = await loginCookie(served.ui, TOKEN);
    other = await loginCookie(served.ui, TOKEN);
  });
  afterAll(async () => {
    await served.close();
  });

  it('answers a call with its approval question, then with its result once approved', async () => {
    const question = await ask('api-approved');
    const done = await post('answer', {
      question,
      action: 'accept',
      content: { approve: true },
    });
    expect(done.status).toBe(200);
    expect(done.body.content?.[0]?.text).toBe('deleted api-approved');
    // Answered once: it no longer waits.
    const again = await post('answer', { question, action: 'accept', content: { approve: true } });
    expect(again).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  });

  it('lets no other login answer it', async () => {
    const question = await ask('api-other');
    const stolen = await post(
      'answer',
      { question, action: 'accept', content: { approve: true } },
      other,
    );
    expect(stolen).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const declined = await post('answer', { question, action: 'decline' });
    expect(declined).toMatchObject({ status: 403, body: { error: { code: 'approval_denied' } } });
  });

  it('refuses answers of the wrong shape with invalid_argument, and keeps the question', async () => {
    const question = await ask('api-shape');
    for (const body of [
      { question, action: 'maybe' },
      { question, action: 'accept', content: { approve: { nested: true } } },
      { question, action: 'accept' },
      { question: 42, action: 'decline' },
    ]) {
      const refused = await post('answer', body);
      expect(refused).toMatchObject({ status: 400, body: { error: { code: 'invalid_argument' } } });
    }
    // A form whose answer breaks the approval's own field is no approval.
    const invalid = await post('answer', { question, action: 'accept', content: { approve: 'y' } });
    expect(invalid).toMatchObject({ status: 403, body: { error: { code: 'approval_denied' } } });
  });

  it("keeps one login's open questions from taking every slot: its own are bounded", async () => {
    const mine = await Promise.all(
      Array.from({ length: MAX_QUESTIONS_PER_LOGIN }, (_, i) => ask(`api-many-${String(i)}`)),
    );
    const refused = await post('call', { tool: 'fixture:delete-item', arguments: { id: 'more' } });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'approval_denied' } } });
    expect(refused.body.error?.message).toContain(
      `${String(MAX_QUESTIONS_PER_LOGIN)} questions of this login already wait`,
    );
    // Another login still asks, and this one again once its questions are answered.
    const theirs = await post(
      'call',
      { tool: 'fixture:delete-item', arguments: { id: 'o' } },
      other,
    );
    expect(theirs.body.question?.approval).toBe(true);
    for (const question of [...mine, theirs.body.question?.id ?? '']) {
      const as = question === theirs.body.question?.id ? other : cookie;
      expect((await post('answer', { question, action: 'decline' }, as)).status).toBe(403);
    }
    const again = await ask('api-many-again');
    expect((await post('answer', { question: again, action: 'decline' })).status).toBe(403);
  });

  it('refuses the call when nobody answers in time; a late answer finds no question', async () => {
    const deletes = () => served.feed.recent().filter((c) => c.tool === 'fixture:delete-item');
    const before = deletes().length;
    const question = await ask('api-late');
    await expect
      .poll(() => deletes()[before]?.outcome, { timeout: 10_000 })
      .toBe('approval_denied');
    const late = await post('answer', { question, action: 'accept', content: { approve: true } });
    expect(late).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  });

  it("brings an upstream server's own question to the operator, and its answer back", async () => {
    const asked = await post('call', { tool: 'fixture:elicit', arguments: { message: 'sure?' } });
    expect(asked.body.question).toMatchObject({ message: 'sure?', approval: false });
    const done = await post('answer', {
      question: asked.body.question?.id,
      action: 'accept',
      content: { answer: 'yes' },
    });
    expect(JSON.parse(done.body.content?.[0]?.text ?? '')).toEqual({
      action: 'accept',
      content: { answer: 'yes' },
    });
  });

  it("withdraws a login's questions when it logs out: its calls end, not wait for their time", async () => {
    const leaving = await loginCookie(served.ui, TOKEN);
    const elicits = () => served.feed.recent().filter((c) => c.tool === 'fixture:elicit');
    const before = elicits().length;
    const asked = await post(
      'call',
      { tool: 'fixture:elicit', arguments: { message: 'bye?' } },
      leaving,
    );
    expect(asked.body.question?.approval).toBe(false);
    expect((await post('logout', {}, leaving)).status).toBe(200);
    // The upstream server hears the question cancelled (it waits a minute for an answer else).
    await expect.poll(() => elicits()[before]?.outcome, { timeout: 10_000 }).toBe('ok');
  });

  it('says plainly that it cannot answer an upstream server asking for sampling', async () => {
    const sampled = await post('call', { tool: 'fixture:sample', arguments: { prompt: 'hi' } });
    const said = JSON.stringify(sampled.body);
    expect(said).toContain('the dashboard cannot answer sampling/createMessage');
    expect(said).not.toContain('has ended');
  });
});
