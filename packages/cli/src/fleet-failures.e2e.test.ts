// The fleet of fleet.e2e.test.ts (three `toolplane serve --http` instances sharing one
// PostgreSQL store behind HAProxy, on 127.0.0.1) when its parts fail: an instance SIGKILLed with
// sessions on it, calls in flight and writes to the store; a rolling restart; the store gone.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { entryArgs } from '@toolplane/fixtures';
import { createPostgresStore } from '@toolplane/store-postgres';
import { expect, it, vi } from 'vitest';
import {
  connect,
  echo,
  fetchIdempotent,
  pool,
  requestsSent,
  textOf,
  within,
} from './testing/fleet-clients.js';
import { describeFleet, NAMES } from './testing/fleet-suite.js';

const STORE_WRITER = fileURLToPath(new URL('testing/store-writer.ts', import.meta.url));

describeFleet(
  'a fleet of three gateways behind HAProxy, when an instance or the store fails',
  (fleet) => {
    it('keeps a 2025 session on its instance; once that dies, 404 and a new session works', async () => {
      const url = fleet.url;
      const seen: string[] = [];
      const client = await connect(url, 'legacy', seen);
      const home = seen[0] ?? '';
      expect(NAMES).toContain(home);
      for (let i = 0; i < 12; i++) expect(textOf(await echo(client, `s${i}`))).toBe(`s${i}`);
      expect(new Set(seen)).toEqual(new Set([home]));
      const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId ?? '';
      expect(sessionId).not.toBe('');

      await fleet.kill(home);
      try {
        await sessionMovesOn(url, sessionId, home);
      } finally {
        await client.close().catch(() => undefined);
        // Whatever happened above, the next tests find three instances.
        await fleet.start(home);
        await fleet.routedTo(home);
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
      const url = fleet.url;
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
      const balancerPid = fleet.balancer.child.pid ?? 0;
      process.kill(balancerPid, 'SIGSTOP');
      let after: Promise<PromiseSettledResult<string>[]>;
      try {
        await fleet.kill(victim);
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
        await fleet.start(victim);
        await fleet.routedTo(victim);
      }
    }, 60_000);

    it('loses no acknowledged store write when instances are SIGKILLed under load', async () => {
      const url = fleet.url;
      // A writer process (the store API, as an instance uses it) acknowledges each write on stdout
      // once its promise has resolved; it and gateway c are SIGKILLed while it writes and the
      // gateways serve calls.
      const writer = spawn(
        process.execPath,
        [...entryArgs(STORE_WRITER), fleet.postgres.url, 'durable', '8'],
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
        await fleet.kill('c');
        // Every line the writer printed before it died has been read once its stdout closes.
        await within(closed, 10_000, "the SIGKILLed writer's stdout to close");
        loading.on = false;
        expect(await load).toBeGreaterThan(0);
        const reader = await createPostgresStore({ connectionString: fleet.postgres.url });
        try {
          const stored = new Set((await reader.listPrompts()).map((prompt) => prompt.name));
          expect([...acked].filter((name) => !stored.has(name))).toEqual([]);
        } finally {
          await reader.close();
        }
        // And every surviving instance lists them all (bounded wait for its change feed).
        for (const name of ['a', 'b']) {
          const direct = await connect(fleet.instance(name).url, 'modern');
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
        console.info(
          `durability: ${String(acked.size)} acknowledged writes, all stored and listed`,
        );
      } finally {
        loading.on = false;
        writer.kill('SIGKILL');
        await load;
        await client.close();
        if (!fleet.isRunning('c')) {
          await fleet.start('c');
          await fleet.routedTo('c');
        }
      }
    }, 120_000);

    it('loses no 2026 call that retries once during a rolling restart', async () => {
      const url = fleet.url;
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
          const old = fleet.instance(name);
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
          await fleet.start(name);
          await fleet.routedTo(name);
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
      const healthz = (name: string) => fetch(new URL('/healthz', fleet.instance(name).url));
      // Instance a may still be coming back from the rolling restart: wait, bounded, for it.
      await vi.waitFor(async () => {
        for (const name of NAMES) expect((await healthz(name)).status).toBe(200);
      }, 15_000);
      // Checks in flight as the store stops: a connection lost between two of their statements
      // once ended the instance.
      let checking = true;
      const checks = NAMES.map(async (name) => {
        while (checking) await healthz(name).catch(() => undefined);
      });
      try {
        await fleet.postgres.stop();
      } finally {
        checking = false;
        await Promise.all(checks);
      }
      for (const name of NAMES) {
        const down = await healthz(name).catch((cause: unknown) => {
          const printed = fleet.instance(name).stderr();
          throw new Error(`instance ${name} did not answer; it printed:\n${printed}`, { cause });
        });
        expect(down.status).toBe(503);
        expect(await down.json()).toEqual({ status: 'unavailable' });
      }
    });
  },
);
