// Three `toolplane serve --http` instances sharing one PostgreSQL store behind HAProxy, all
// started here on 127.0.0.1: what a 2026-07-28 client and a 2025 client see while every instance
// is up. fleet-failures.e2e.test.ts kills and restarts them.
import type { Client } from '@modelcontextprotocol/client';
import { callModern } from '@toolplane/fixtures';
import { INSTANCE_META_KEY } from '@toolplane/gateway';
import { createPostgresStore } from '@toolplane/store-postgres';
import { expect, it } from 'vitest';
import { connect, echo, pool, rawText, textOf, within } from './testing/fleet-clients.js';
import { describeFleet, NAMES } from './testing/fleet-suite.js';

describeFleet('a fleet of three gateways behind HAProxy', (fleet) => {
  it('answers 1,000 calls of 2026 clients spread round robin over all three', async () => {
    const seen: string[] = [];
    const clients = await Promise.all(
      Array.from({ length: 8 }, () => connect(fleet.url, 'modern', seen)),
    );
    try {
      const outcomes = await pool(1_000, 16, async (i) =>
        textOf(await echo(clients[i % clients.length] as Client, `call ${i}`)),
      );
      expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
      expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : ''))).toEqual(
        Array.from({ length: 1_000 }, (_, i) => `call ${i}`),
      );
      for (const name of NAMES) {
        // Round robin: each of three gets about a third; "well over a tenth" leaves room for load.
        expect(seen.filter((s) => s === name).length).toBeGreaterThan(100);
      }
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  }, 60_000);

  it('lists the same tools from every instance', async () => {
    const lists = await Promise.all(
      NAMES.map(async (name) => {
        const client = await connect(fleet.instance(name).url, 'modern');
        try {
          return (await client.listTools()).tools;
        } finally {
          await client.close();
        }
      }),
    );
    expect(lists[0]?.map((tool) => tool.name)).toContain('fx__echo');
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
  });

  it('names the instance in the Toolplane-Instance header and the _meta of its errors', async () => {
    const response = await fetch(fleet.instance('b').url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('toolplane-instance')).toBe('b');
    const body = (await response.json()) as { error: { data?: { _meta?: object } } };
    expect(body.error.data?._meta).toEqual({ [INSTANCE_META_KEY]: 'b' });
  });

  it('tells a 2026 listener on one instance of a prompt written through another', async () => {
    const listener = await connect(fleet.instance('c').url, 'modern');
    // Another instance's store: its own pool and LISTEN connection on the shared database.
    const writer = await createPostgresStore({ connectionString: fleet.postgres.url });
    try {
      const heard = new Promise<void>((resolve) => {
        listener.setNotificationHandler('notifications/prompts/list_changed', () => {
          resolve();
        });
      });
      const subscription = await listener.listen({ promptsListChanged: true });
      expect(subscription.honoredFilter.promptsListChanged).toBe(true);
      await writer.putPrompt({
        name: 'fanned-out',
        description: 'Written elsewhere',
        template: 'hi',
      });
      // How soon it is heard is the fleet bench's to measure; here, that it is heard at all.
      await within(heard, 10_000, 'prompts/list_changed on the listening instance');
      const { prompts } = await listener.listPrompts();
      expect(prompts.map((p) => p.name)).toContain('user__fanned-out');
      await subscription.close();
    } finally {
      await writer.close();
      await listener.close();
    }
  });

  it('tells a 2025 session on one instance of a prompt written through another', async () => {
    const session = await connect(fleet.instance('a').url, 'legacy');
    const writer = await createPostgresStore({ connectionString: fleet.postgres.url });
    try {
      const heard = new Promise<void>((resolve) => {
        session.setNotificationHandler('notifications/prompts/list_changed', () => {
          resolve();
        });
      });
      // Unsolicited notifications ride the session's GET stream, which the client opens on its
      // own time after initialize: a write before it is open is told to no one, so write until
      // one is heard (bounded).
      const state = { told: false };
      void heard.then(() => (state.told = true));
      for (let i = 0; i < 10 && !state.told; i++) {
        await writer.putPrompt({ name: 'to-sessions', template: `v${String(i)}` });
        await Promise.race([heard, new Promise((resolve) => setTimeout(resolve, 1_000))]);
      }
      expect(state.told).toBe(true);
      const { prompts } = await session.listPrompts();
      expect(prompts.map((p) => p.name)).toContain('user__to-sessions');
    } finally {
      await writer.close();
      await session.close();
    }
  });

  /** Starts `name` on instance a and returns its first round. */
  const firstRound = async (name: string, args: object) => {
    const answer = await callModern(fleet.instance('a').url, name, args);
    expect(answer.result?.resultType).toBe('input_required');
    const [[key, request] = ['', { method: '' }]] = Object.entries(
      answer.result?.inputRequests ?? {},
    );
    return { key, method: request.method, state: answer.result?.requestState ?? '' };
  };
  it('resumes an eliciting and a sampling call of a 2025 upstream on another instance', async () => {
    const elicit = await firstRound('fx__elicit', { message: 'sure?' });
    expect(elicit.method).toBe('elicitation/create');
    const retry = {
      requestState: elicit.state,
      inputResponses: { [elicit.key]: { action: 'accept', content: { answer: 'yes' } } },
    };
    // Instance b holds no call: it replays it, answering the upstream's question from the retry.
    expect(
      JSON.parse(
        rawText(await callModern(fleet.instance('b').url, 'fx__elicit', {}, { params: retry })),
      ),
    ).toEqual({
      action: 'accept',
      content: { answer: 'yes' },
    });
    // One use on the whole fleet (spent in PostgreSQL): b refuses it again, and so does c,
    // which has never seen it.
    expect(
      (await callModern(fleet.instance('b').url, 'fx__elicit', {}, { params: retry })).error,
    ).toMatchObject({
      code: -32602,
    });
    const elsewhere = await callModern(
      fleet.instance('c').url,
      'fx__elicit',
      {},
      { params: retry },
    );
    expect(elsewhere.error).toMatchObject({ code: -32602 });
    expect(elsewhere.error?.message).toMatch(/already used/);
    const forged = { ...retry, requestState: `${elicit.state.slice(0, -4)}AAAA` };
    expect(
      (await callModern(fleet.instance('c').url, 'fx__elicit', {}, { params: forged })).error,
    ).toMatchObject({
      code: -32602,
    });

    const sample = await firstRound('fx__sample', { prompt: 'hello?' });
    expect(sample.method).toBe('sampling/createMessage');
    const sampled = await callModern(
      fleet.instance('c').url,
      'fx__sample',
      {},
      {
        params: {
          requestState: sample.state,
          inputResponses: {
            [sample.key]: {
              role: 'assistant',
              model: 'test',
              content: { type: 'text', text: 'hello from c' },
            },
          },
        },
      },
    );
    expect(rawText(sampled)).toBe('hello from c');
  });

  it('refuses with -32602, naming the holder, a retry elsewhere of a call it may not replay', async () => {
    const round = await firstRound('fy__elicit', { message: 'sure?' });
    const retry = {
      requestState: round.state,
      inputResponses: { [round.key]: { action: 'decline' } },
    };
    // fy__elicit is neither read-only nor idempotent, nor listed in replayTools.
    const refused = await callModern(fleet.instance('b').url, 'fy__elicit', {}, { params: retry });
    expect(refused.error).toMatchObject({
      code: -32602,
      data: { instance: 'a', _meta: { [INSTANCE_META_KEY]: 'b' } },
    });
    expect(refused.error?.message).toMatch(/instance "a"/);
    expect(
      rawText(await callModern(fleet.instance('a').url, 'fy__elicit', {}, { params: retry })),
    ).toMatch(/decline/);
  });

  it('runs a destructive call once on the instance an approval answer reaches, and a declined one nowhere', async () => {
    const deleted = async (): Promise<string[]> =>
      (
        await Promise.all(
          NAMES.map(
            async (name) =>
              JSON.parse(
                rawText(await callModern(fleet.instance(name).url, 'fx__deleted-items', {})),
              ) as string[],
          ),
        )
      ).flat();
    for (const [id, answer] of [
      ['fleet-approved', { action: 'accept', content: { approve: true } }],
      ['fleet-declined', { action: 'decline' }],
    ] as const) {
      // Asked by a (the gateway's own approval, before the upstream is called) …
      const round = await firstRound('fx__delete-item', { id });
      expect(round.method).toBe('elicitation/create');
      const retry = { requestState: round.state, inputResponses: { [round.key]: answer } };
      // … answered on b, which runs the call from the start and the upstream once, if approved.
      const done = await callModern(
        fleet.instance('b').url,
        'fx__delete-item',
        { id },
        {
          params: retry,
        },
      );
      expect(rawText(done)).toMatch(
        answer.action === 'accept' ? `deleted ${id}` : /approval_denied/,
      );
      // One use on the whole fleet (spent in PostgreSQL): a and c refuse it.
      for (const name of ['a', 'c'] as const) {
        const again = await callModern(
          fleet.instance(name).url,
          'fx__delete-item',
          { id },
          {
            params: retry,
          },
        );
        expect(again.error).toMatchObject({ code: -32602 });
      }
    }
    const all = await deleted();
    expect(all.filter((id) => id === 'fleet-approved')).toEqual(['fleet-approved']);
    expect(all).not.toContain('fleet-declined');
    // What a's operator reads of the two calls it asked about and handed on: input_required, in
    // /metrics, the audit lines and the dashboard's live log alike, and no error in its charts.
    const asker = fleet.instance('a');
    const ui = new URL('/ui/', asker.url);
    const handed = async () =>
      (
        (await (await fetch(new URL('api/calls', ui))).json()) as {
          calls: { tool: string; outcome?: string }[];
        }
      ).calls
        .filter((call) => call.tool === 'fx:delete-item')
        .map((call) => call.outcome);
    await expect.poll(handed).toEqual(['input_required', 'input_required']);
    const stats = (await (await fetch(new URL('api/stats', ui))).json()) as { errors: number };
    const failed = (
      (await (await fetch(new URL('api/calls', ui))).json()) as { calls: { outcome?: string }[] }
    ).calls.filter((call) => ![undefined, 'ok', 'input_required'].includes(call.outcome));
    expect(stats.errors).toBe(failed.length);
    const metrics = await (await fetch(new URL('/metrics', asker.url))).text();
    expect(metrics).toContain('tool="fx:delete-item",outcome="input_required"} 2');
    expect(metrics).not.toMatch(/tool="fx:delete-item",outcome="cancelled"/);
    expect(asker.stderr()).not.toMatch(/call fx:delete-item cancelled/);
  });
});
