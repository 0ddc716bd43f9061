// Three `toolplane serve --http` instances sharing one PostgreSQL store behind HAProxy, all
// started here on 127.0.0.1: what a 2026-07-28 client, a 2025 client and an operator see.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { callModern, entryArgs } from '@toolplane/fixtures';
import { INSTANCE_META_KEY } from '@toolplane/gateway';
import { createPostgresStore } from '@toolplane/store-postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  fleetConfig,
  freePorts,
  HAPROXY_MISSING,
  hasHaproxy,
  hasPostgres,
  POSTGRES_MISSING,
  startHaproxy,
  startInstance,
  startPostgres,
  type Haproxy,
  type Instance,
  type Postgres,
} from './testing/fleet.js';
import {
  connect,
  echo,
  fetchIdempotent,
  pool,
  rawText,
  requestsSent,
  textOf,
  within,
} from './testing/fleet-clients.js';

const STORE_WRITER = fileURLToPath(new URL('testing/store-writer.ts', import.meta.url));

const NAMES = ['a', 'b', 'c'] as const;

const haproxy = hasHaproxy();
const postgres = hasPostgres();
const inCi = process.env.CI === 'true';
if (!inCi && !haproxy) console.warn(HAPROXY_MISSING);
if (!inCi && !postgres) console.warn(POSTGRES_MISSING);

describe.runIf(inCi && !(haproxy && postgres))('the fleet tests in CI', () => {
  it('find haproxy and the PostgreSQL server binaries', () => {
    expect.fail(haproxy ? POSTGRES_MISSING : HAPROXY_MISSING);
  });
});

describe.skipIf(!(haproxy && postgres))('a fleet of three gateways behind HAProxy', () => {
  let dir = '';
  let pg: Postgres | undefined;
  let balancer: Haproxy | undefined;
  const instances = new Map<string, Instance>();
  const ports = new Map<string, number>();

  const instance = (name: string): Instance => {
    const found = instances.get(name);
    if (found === undefined) throw new Error(`instance ${name} is not running`);
    return found;
  };
  const start = async (name: string): Promise<Instance> => {
    const started = await startInstance({
      dir,
      name,
      port: ports.get(name) ?? 0,
      postgresUrl: pg?.url ?? '',
    });
    instances.set(name, started);
    return started;
  };
  /** Waits until the balancer sends requests to `name` again (its health check has passed). */
  const routedTo = async (name: string): Promise<void> => {
    const url = balancer?.url ?? new URL('http://127.0.0.1');
    const seen: string[] = [];
    const client = await connect(url, 'modern', seen);
    try {
      const deadline = Date.now() + 15_000;
      while (!seen.includes(name)) {
        if (Date.now() > deadline) throw new Error(`the balancer never routed to ${name}`);
        // A call, not tools/list: a 2026 client caches lists (their ttlMs).
        await echo(client, 'probe');
      }
    } finally {
      await client.close();
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolplane-fleet-'));
    const [balancerPort = 0, ...instancePorts] = await freePorts(1 + NAMES.length);
    NAMES.forEach((name, i) => ports.set(name, instancePorts[i] ?? 0));
    await writeFile(
      join(dir, 'toolplane.config.json'),
      JSON.stringify(fleetConfig({ balancerPort, drainMs: 5_000 }), null, 2),
    );
    pg = await startPostgres();
    // The first instance migrates the schema; the others find it done.
    await start('a');
    await Promise.all(NAMES.slice(1).map((name) => start(name)));
    balancer = await startHaproxy(dir, {
      port: balancerPort,
      servers: NAMES.map((name) => ({ name, port: ports.get(name) ?? 0 })),
    });
    for (const name of NAMES) await routedTo(name);
  }, 120_000);

  afterAll(async () => {
    await balancer?.stop();
    await Promise.all([...instances.values()].map((running) => running.stop('SIGKILL')));
    await pg?.stop();
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('answers 1,000 calls of 2026 clients spread round robin over all three', async () => {
    const seen: string[] = [];
    const clients = await Promise.all(
      Array.from({ length: 8 }, () => connect(balancer?.url ?? new URL('x:'), 'modern', seen)),
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
        const client = await connect(instance(name).url, 'modern');
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
    const response = await fetch(instance('b').url, {
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
    const listener = await connect(instance('c').url, 'modern');
    // Another instance's store: its own pool and LISTEN connection on the shared database.
    const writer = await createPostgresStore({ connectionString: pg?.url ?? '' });
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
    const session = await connect(instance('a').url, 'legacy');
    const writer = await createPostgresStore({ connectionString: pg?.url ?? '' });
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
    const answer = await callModern(instance('a').url, name, args);
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
      JSON.parse(rawText(await callModern(instance('b').url, 'fx__elicit', {}, { params: retry }))),
    ).toEqual({
      action: 'accept',
      content: { answer: 'yes' },
    });
    // One use on the whole fleet (spent in PostgreSQL): b refuses it again, and so does c,
    // which has never seen it.
    expect(
      (await callModern(instance('b').url, 'fx__elicit', {}, { params: retry })).error,
    ).toMatchObject({
      code: -32602,
    });
    const elsewhere = await callModern(instance('c').url, 'fx__elicit', {}, { params: retry });
    expect(elsewhere.error).toMatchObject({ code: -32602 });
    expect(elsewhere.error?.message).toMatch(/already used/);
    const forged = { ...retry, requestState: `${elicit.state.slice(0, -4)}AAAA` };
    expect(
      (await callModern(instance('c').url, 'fx__elicit', {}, { params: forged })).error,
    ).toMatchObject({
      code: -32602,
    });

    const sample = await firstRound('fx__sample', { prompt: 'hello?' });
    expect(sample.method).toBe('sampling/createMessage');
    const sampled = await callModern(
      instance('c').url,
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
    const refused = await callModern(instance('b').url, 'fy__elicit', {}, { params: retry });
    expect(refused.error).toMatchObject({
      code: -32602,
      data: { instance: 'a', _meta: { [INSTANCE_META_KEY]: 'b' } },
    });
    expect(refused.error?.message).toMatch(/instance "a"/);
    expect(
      rawText(await callModern(instance('a').url, 'fy__elicit', {}, { params: retry })),
    ).toMatch(/decline/);
  });

  it('keeps a 2025 session on its instance; once that dies, 404 and a new session works', async () => {
    const url = balancer?.url ?? new URL('x:');
    const seen: string[] = [];
    const client = await connect(url, 'legacy', seen);
    const home = seen[0] ?? '';
    expect(NAMES).toContain(home);
    for (let i = 0; i < 12; i++) expect(textOf(await echo(client, `s${i}`))).toBe(`s${i}`);
    expect(new Set(seen)).toEqual(new Set([home]));
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId ?? '';
    expect(sessionId).not.toBe('');

    await instance(home).stop('SIGKILL');
    instances.delete(home);
    try {
      await sessionMovesOn(url, sessionId, home);
    } finally {
      await client.close().catch(() => undefined);
      // Whatever happened above, the next tests find three instances.
      await start(home);
      await routedTo(home);
    }
  }, 60_000);

  const sessionMovesOn = async (url: URL, sessionId: string, home: string): Promise<void> => {
    // tools/list: safe to send again if a pooled connection was found dead.
    const stale = await fetchIdempotent(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(stale.status).toBe(404);
    expect(stale.headers.get('toolplane-instance')).not.toBe(home);

    const again: string[] = [];
    const fresh = await connect(url, 'legacy', again);
    try {
      expect(textOf(await echo(fresh, 'again'))).toBe('again');
      expect(again.every((name) => name !== home && name === again[0])).toBe(true);
    } finally {
      await fresh.close();
    }
  };

  it('fails only the calls in flight on an instance SIGKILLed under load', async () => {
    const url = balancer?.url ?? new URL('x:');
    const victim = 'b';
    // One client per slow call, so each call's instance is known from its stream's headers.
    const calls = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const seen: string[] = [];
        const client = await connect(url, 'modern', seen);
        const before = seen.length;
        let onInstance: (name: string) => void = () => undefined;
        const started = new Promise<string>((resolve) => (onInstance = resolve));
        const call = client
          .callTool(
            { name: 'fx__slow', arguments: { ms: 1_000 } },
            {
              // The SDK client leaves a request whose SSE answer broke off pending until its
              // timeout (typescript-sdk issue 2739): a short one makes the failure prompt.
              timeout: 4_000,
              onprogress: () => {
                onInstance(seen[before] ?? '');
              },
            },
          )
          .then(
            () => 'ok' as const,
            () => 'failed' as const,
          );
        // A call that ends before any progress still tells where it ran (or that it failed).
        const result = call;
        void call.then(() => {
          onInstance(seen[before] ?? '');
        });
        return { client, started, result };
      }),
    );
    const on = await Promise.all(calls.map((call) => call.started));
    expect(on).toContain(victim);
    // The client of the calls begun after the kill has kept-alive connections to the balancer,
    // and the balancer some to every instance, the victim too.
    const client = await connect(url, 'modern');
    await pool(30, 6, async (i) => textOf(await echo(client, `before ${i}`)));
    // Under load, the balancer may not run between the kill and the next request, so it does
    // not yet know that its connections to the victim are dead: it is stopped across the kill,
    // and goes on once the next requests are on their way to it.
    const balancerPid = balancer?.child.pid ?? 0;
    process.kill(balancerPid, 'SIGSTOP');
    let after: Promise<PromiseSettledResult<string>[]>;
    try {
      await instance(victim).stop('SIGKILL');
      instances.delete(victim);
      const sent = requestsSent(6);
      after = pool(60, 6, async (i) => textOf(await echo(client, `after ${i}`)));
      await within(sent, 10_000, 'the first requests after the kill to be sent');
    } finally {
      process.kill(balancerPid, 'SIGCONT');
    }
    try {
      // Calls begun after the kill: each goes on a new connection to an instance, and a refused
      // one is retried on another instance.
      const results = await Promise.all(calls.map((call) => call.result));
      const settled = await after;
      await client.close();
      await Promise.all(calls.map((call) => call.client.close()));
      expect(settled.filter((o) => o.status === 'rejected')).toEqual([]);
      on.forEach((name, i) => {
        expect(results[i]).toBe(name === victim ? 'failed' : 'ok');
      });
    } finally {
      await start(victim);
      await routedTo(victim);
    }
  }, 60_000);

  it('loses no acknowledged store write when instances are SIGKILLed under load', async () => {
    const url = balancer?.url ?? new URL('x:');
    // A writer process (the store API, as an instance uses it) acknowledges each write on stdout
    // once its promise has resolved; it and gateway c are SIGKILLed while it writes and the
    // gateways serve calls.
    const writer = spawn(
      process.execPath,
      [...entryArgs(STORE_WRITER), pg?.url ?? '', 'durable', '8'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const acked = new Set<string>();
    let pending = '';
    writer.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('ACK ')) acked.add(line.slice(4));
    });
    const closed = new Promise<void>((resolve) =>
      writer.once('close', () => {
        resolve();
      }),
    );
    const client = await connect(url, 'modern');
    const loading = { on: true };
    const load = (async () => {
      let calls = 0;
      while (loading.on) {
        await echo(client, `load ${calls++}`).catch(() => undefined);
      }
      return calls;
    })();
    try {
      await vi.waitFor(() => {
        expect(acked.size).toBeGreaterThanOrEqual(200);
      }, 60_000);
      writer.kill('SIGKILL');
      await instance('c').stop('SIGKILL');
      instances.delete('c');
      // Every line the writer printed before it died has been read once its stdout closes.
      await within(closed, 10_000, "the SIGKILLed writer's stdout to close");
      loading.on = false;
      expect(await load).toBeGreaterThan(0);
      const reader = await createPostgresStore({ connectionString: pg?.url ?? '' });
      try {
        const stored = new Set((await reader.listPrompts()).map((prompt) => prompt.name));
        expect([...acked].filter((name) => !stored.has(name))).toEqual([]);
      } finally {
        await reader.close();
      }
      // And every surviving instance lists them all (bounded wait for its change feed).
      for (const name of ['a', 'b']) {
        const direct = await connect(instance(name).url, 'modern');
        try {
          await vi.waitFor(async () => {
            const listed = new Set<string>();
            let cursor: string | undefined;
            do {
              const page = await direct.listPrompts(cursor === undefined ? {} : { cursor });
              for (const prompt of page.prompts) listed.add(prompt.name);
              cursor = page.nextCursor;
            } while (cursor !== undefined);
            expect([...acked].filter((written) => !listed.has(`user__${written}`))).toEqual([]);
          }, 15_000);
        } finally {
          await direct.close();
        }
      }
      console.info(`durability: ${String(acked.size)} acknowledged writes, all stored and listed`);
    } finally {
      loading.on = false;
      writer.kill('SIGKILL');
      await load;
      await client.close();
      if (!instances.has('c')) {
        await start('c');
        await routedTo('c');
      }
    }
  }, 120_000);

  it('loses no 2026 call that retries once during a rolling restart', async () => {
    const url = balancer?.url ?? new URL('x:');
    const clients = await Promise.all(Array.from({ length: 4 }, () => connect(url, 'modern')));
    let running = true;
    let calls = 0;
    let retried = 0;
    const failures: unknown[] = [];
    const load = clients.map(async (client, worker) => {
      for (let i = 0; running; i++) {
        const text = `w${worker}-${i}`;
        try {
          expect(textOf(await echo(client, text))).toBe(text);
        } catch {
          retried++;
          try {
            expect(textOf(await echo(client, text))).toBe(text);
          } catch (error) {
            failures.push(error);
          }
        }
        calls++;
      }
    });
    try {
      for (const name of NAMES) {
        const old = instance(name);
        // A call in flight when SIGTERM arrives is finished before the instance exits.
        const direct = await connect(old.url, 'modern');
        let inFlight!: () => void;
        const begun = new Promise<void>((resolve) => (inFlight = resolve));
        const slow = direct.callTool(
          { name: 'fx__slow', arguments: { ms: 700 } },
          {
            onprogress: () => {
              inFlight();
            },
          },
        );
        // The call's first progress says it runs (bounded: it may also end, or fail, first).
        await within(
          Promise.race([begun, slow.then(() => undefined)]),
          15_000,
          `a slow call to start on ${name}`,
        );
        expect(await old.stop('SIGTERM')).toBe(0);
        expect((await slow).isError).not.toBe(true);
        expect(old.stderr()).toMatch(new RegExp(`\\[${name}\\] shutting down \\(draining`));
        await direct.close().catch(() => undefined);
        await start(name);
        await routedTo(name);
      }
    } finally {
      running = false;
      await Promise.all(load);
      await Promise.all(clients.map((client) => client.close()));
    }
    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(20);
    console.info(`rolling restart: ${calls} calls, ${retried} retried once, none failed`);
  }, 90_000);

  it('answers /healthz 503 once the store is unreachable, 200 while it answers', async () => {
    const healthz = (name: string) => fetch(new URL('/healthz', instance(name).url));
    // Instance a may still be coming back from the rolling restart: wait, bounded, for it.
    await vi.waitFor(async () => {
      expect((await healthz('a')).status).toBe(200);
    }, 15_000);
    await pg?.stop();
    const down = await healthz('a');
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'unavailable' });
  }, 30_000);
});
