// The hostile callers of issue 29, each attack at the size the issue gives, against the real
// `toolplane serve --http` child: while an attack runs, another session must keep being answered
// (a generous bound, not a speed target), and the child's memory is read before and after.
// What it measured is printed as one table at the end, for the record; only liveness, refusals
// and bounds far below the figures before the fixes are asserted.
import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
} from '@modelcontextprotocol/client';
import { requestScopedFetch } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
  waitForStderr,
} from './testing/cli-process.js';
import { stdioServerScript } from './testing/stdio-script.js';

const TOKEN = 'hostile-suite-token-0123';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
// How long a victim's call may take under attack before it counts as not answered.
const LIVENESS_MS = 30_000;
const ERROR_META_KEY = 'io.toolplane/error';

// Item 6: a URL-query secret with characters the URL parser escapes, and the forms it takes.
const SPACED_KEY = "k y^'hostile-5c1e";
const SPACED_FORMS = [SPACED_KEY, "k%20y^'hostile", 'k%20y^%27hostile', 'k+y%5E%27hostile'];

// Item 7: an upstream over stdio (plain JSON-RPC) whose one tool answers with its own -32000.
const REFUSAL = { code: -32000, message: 'quota exceeded for this caller', data: { retry: 30 } };
const REFUSING_SERVER = stdioServerScript({
  name: 'refusing',
  tools: ['refuse'],
  onCall: `reply({ error: ${JSON.stringify(REFUSAL)} });`,
});

// Item 2: a JMESPath expression asking for 10^8 values from ten (it runs to the time limit).
const TEN = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const EXPENSIVE_QUERY = `length([]${'.[@,@,@,@,@,@,@,@,@,@][]'.repeat(8)})`;

const dir = useTempDir('hostile');
let gateway: ChildProcess | undefined;
let endpoint: URL;
let stderr = '';
const clients: Client[] = [];
// What each attack measured, printed once at the end.
const figures: Record<string, Record<string, string | number>> = {};
// Victim calls sent again after a reset kept-alive connection, over the whole suite.
let resets = 0;

/** The resident set size of `pid` in MiB, from /proc (what the kernel holds for it). */
async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
}

/** {@link rssMiB} of the gateway child. */
function childRss(): Promise<number> {
  if (gateway?.pid === undefined) throw new Error('the gateway is not running');
  return rssMiB(gateway.pid);
}

async function connect(): Promise<Client> {
  const client = new Client({ name: 'hostile-suite', version: '1.0.0' });
  await client.connect(
    // requestScopedFetch: the SDK's transport hands one connection-long signal to every fetch,
    // which Node's fetch keeps a listener on per request (a warning per call past 1,500).
    new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: AUTH },
      fetch: requestScopedFetch(),
    }),
  );
  clients.push(client);
  return client;
}

function call(client: Client, name: string, args: Record<string, unknown>, timeout = 60_000) {
  return client.callTool({ name: `builtin__${name}`, arguments: args }, { timeout });
}

function errorCode(result: CallToolResult): unknown {
  return (result._meta?.[ERROR_META_KEY] as { code?: unknown } | undefined)?.code;
}

/**
 * Calls trivial tools on a session of its own until `until` settles (at least once): every call
 * must be answered, and well, within {@link LIVENESS_MS}. Resolves with the latencies in ms. A
 * round starts at most every 100 ms: the victim is a client, not a second attacker.
 */
async function keepCalling(until: Promise<unknown>): Promise<number[]> {
  const state = { done: false };
  void until.finally(() => {
    state.done = true;
  });
  const victim = await connect();
  const latencies: number[] = [];
  do {
    const pace = new Promise((resolve) => setTimeout(resolve, 100));
    for (const [name, args] of [
      ['time_now', { timeZone: 'Europe/Paris' }],
      ['json_query', { expression: 'a.b', data: { a: { b: 1 } } }],
      ['text_stats', { text: 'One sentence. Another one.' }],
    ] as const) {
      const started = performance.now();
      const result = await call(victim, name, args, LIVENESS_MS)
        .catch((error: unknown) => {
          // A kept-alive connection the server closed as idle while this (busy) process was slow
          // to see it: sent again on a fresh one, as HTTP clients do, and counted.
          if (!isReset(error)) throw error;
          resets++;
          return call(victim, name, args, LIVENESS_MS);
        })
        .catch((error: unknown) => {
          throw new Error(
            `${name} under attack, after ${String(Math.round(performance.now() - started))} ms`,
            { cause: error },
          );
        });
      latencies.push(performance.now() - started);
      expect(result.isError, `${name} under attack: ${JSON.stringify(result)}`).not.toBe(true);
    }
    await pace;
  } while (!state.done);
  await victim.close();
  return latencies;
}

/** Whether `error` is a connection reset (or closed) under a request, before any answer. */
function isReset(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return true;
  }
  return false;
}

function summary(latencies: readonly number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number): number => Math.round(sorted[Math.floor(q * (sorted.length - 1))] ?? 0);
  return `${String(sorted.length)} calls, median ${String(at(0.5))} ms, max ${String(at(1))} ms`;
}

/** Runs `attack` while the victim keeps calling; records memory and the victim's latencies. */
async function underAttack<T>(name: string, attack: () => Promise<T>): Promise<T> {
  const before = await childRss();
  const running = attack();
  // The attack is awaited even when a victim's call fails, so nothing is left in flight.
  const latencies = await keepCalling(running).catch(async (error: unknown) => {
    await running.catch(() => undefined);
    throw error;
  });
  const outcome = await running;
  const after = await childRss();
  figures[name] = {
    ...figures[name],
    'RSS before (MiB)': before,
    'RSS after (MiB)': after,
    victim: summary(latencies),
  };
  return outcome;
}

beforeAll(async () => {
  await writeFile(
    join(dir(), 'toolplane.config.json'),
    JSON.stringify({
      mcpServers: {
        up: { command: process.execPath, args: ['-e', REFUSING_SERVER] },
        // Nothing listens on port 9: the connection fails with the URL (and its secret) in hand.
        spaced: { url: `http://127.0.0.1:9/mcp?key=${SPACED_KEY}` },
      },
      store: 'memory',
      http: { token: TOKEN },
    }),
  );
  gateway = startCli([...SERVE_HTTP], { cwd: dir() });
  gateway.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  [endpoint] = await Promise.all([listeningUrl(gateway), waitForStderr(gateway, /up connected/)]);
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  if (gateway !== undefined) await stop(gateway, 'SIGTERM');
  figures['victim calls sent again after a reset kept-alive connection'] = { count: resets };
  console.log(`hostile callers, figures:\n${JSON.stringify(figures, null, 2)}`);
});

describe('hostile callers against toolplane serve --http', () => {
  // Cheap ones first, then the caches (whose memory is read against a quiet baseline), and the
  // expensive query last: its worker threads take their memory limit each and give it back late.
  it('6: masks a URL-query secret in every encoding, in /healthz, connectors and the log', async () => {
    const health = await fetch(new URL('/healthz', endpoint), { headers: AUTH });
    const body = await health.text();
    expect(body).toContain('spaced');
    const shown = SPACED_FORMS.filter((form) => body.includes(form) || stderr.includes(form));
    figures['6 masking'] = {
      'spaced connector in /healthz': JSON.stringify(
        (
          JSON.parse(body) as { connectors: { namespace: string; error?: string }[] }
        ).connectors.find((c) => c.namespace === 'spaced')?.error,
      ),
    };
    expect(shown).toEqual([]);
  });

  it("7: passes an upstream's own -32000 on unchanged", async () => {
    const client = await connect();
    const answer = await client.callTool({ name: 'up__refuse', arguments: {} }).then(
      (result) => result as unknown,
      (error: unknown) => error,
    );
    figures['7 upstream -32000'] = { answer: JSON.stringify(answer) };
    expect(answer).toMatchObject(REFUSAL);
  });

  it('3: bounds the caches keyed by caller input (3,000 spellings of one zone, 1,000 locale tags)', async () => {
    const attacker = await connect();
    const zone = 'America/Argentina/Buenos_Aires';
    // The n-th spelling: each letter upper case when its bit of n is set, else lower case.
    const spelling = (n: number): string => {
      let bit = 0;
      return zone.replace(/[A-Za-z]/g, (c) =>
        (n >> bit++) % 2 === 1 ? c.toUpperCase() : c.toLowerCase(),
      );
    };
    const spellings = Array.from({ length: 3_000 }, (_, n) => spelling(n + 1));
    expect(new Set(spellings).size).toBe(3_000);
    const tags = Array.from({ length: 1_000 }, (_, n) => `en-x-h${n.toString(36)}`);
    const before = await childRss();
    await underAttack('3 caches keyed by caller input', async () => {
      const work = [
        ...spellings.map((timeZone) => () => call(attacker, 'time_now', { timeZone })),
        ...tags.map((locale) => () => call(attacker, 'text_stats', { text: 'Two words.', locale })),
      ];
      // Eight calls at a time: bounded in count, as the machine is shared.
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < work.length) {
            const result = await (work[next++] as () => Promise<CallToolResult>)();
            expect(result.isError, JSON.stringify(result)).not.toBe(true);
          }
        }),
      );
    });
    const growth = (await childRss()) - before;
    figures['3 caches keyed by caller input'] = {
      ...figures['3 caches keyed by caller input'],
      'RSS growth (MiB)': Math.round(growth * 10) / 10,
    };
    // Before: ~180 MB from the zones alone (57 KB a formatter), never freed. Bounded, the
    // process still grows by what 4,000 calls leave for its collector: 77 to 91 MiB across
    // the runs of two sessions, so the bound sits between that and the unbounded caches.
    expect(growth).toBeLessThan(130);
  }, 300_000);

  it('1: refuses json_format amplification (8 KB nested 4,000 deep, indent 8, eight at once)', async () => {
    const attacker = await connect();
    const nested = `${'['.repeat(4_000)}${']'.repeat(4_000)}`;
    const results = await underAttack('1 json_format amplification', () =>
      Promise.all(
        Array.from({ length: 8 }, () => call(attacker, 'json_format', { json: nested, indent: 8 })),
      ),
    );
    // Refused from the input's shape, before any printing, with the builtin's own code.
    for (const result of results) {
      expect(result.isError).toBe(true);
      expect(errorCode(result)).toBe('resource_exhausted');
    }
    const bytes = Buffer.byteLength(JSON.stringify(results[0]));
    figures['1 json_format amplification'] = {
      ...figures['1 json_format amplification'],
      'answer bytes (each of 8)': bytes,
    };
    // The answer says no, in a few hundred bytes; before, it was 256 MB.
    expect(bytes).toBeLessThan(64 * 1024);
  }, 180_000);

  it('4: answers text_stats on 1M characters, and others meanwhile', async () => {
    const attacker = await connect();
    const sentences = Math.floor(1_000_000 / 17);
    const text = 'Some words here. '.repeat(sentences);
    const started = performance.now();
    const result = await underAttack('4 text_stats 1M characters', () =>
      call(attacker, 'text_stats', { text }, 120_000),
    );
    figures['4 text_stats 1M characters'] = {
      ...figures['4 text_stats 1M characters'],
      answer: result.isError === true ? String(errorCode(result)) : 'counted',
      'answered after (ms)': Math.round(performance.now() - started),
    };
    // Counted (about 2.5 s of a worker on an idle machine), or, on a machine too loaded to count
    // it within the 5 s a task may run, refused as a timeout: never an answer that does not come.
    if (result.isError === true) expect(errorCode(result)).toBe('timeout');
    else expect(result.structuredContent).toMatchObject({ sentences });
  }, 180_000);

  it('5: keeps accepting new connections while one source trickles 1,100 sockets', async () => {
    const attackFor = 8_000;
    const attack = trickleAttack(endpoint, '127.0.0.2', 1_100, attackFor);
    // New connections from another source, one at a time, while the attack lasts.
    const accepted = await underAttack('5 1,100 trickling sockets from one source', async () => {
      await attack.ready;
      const outcomes: boolean[] = [];
      const ends = Date.now() + attackFor - 1_000;
      while (Date.now() < ends && outcomes.length < 200) {
        outcomes.push(await healthzFrom(endpoint, '127.0.0.3'));
      }
      await attack.done;
      return outcomes;
    });
    const ratio = accepted.filter(Boolean).length / accepted.length;
    figures['5 1,100 trickling sockets from one source'] = {
      ...figures['5 1,100 trickling sockets from one source'],
      'new connections accepted': `${String(accepted.filter(Boolean).length)} of ${String(accepted.length)}`,
      'attacker sockets opened': attack.opened(),
    };
    // Before: 3–7% accepted for as long as the attack lasted.
    expect(accepted.length).toBeGreaterThan(0);
    expect(ratio).toBeGreaterThanOrEqual(0.9);
  }, 120_000);

  it('2: keeps the heavy builtins for others while one session holds an expensive json_query', async () => {
    const attacker = await connect();
    // One expensive query in flight at all times, three in a row (each runs to the time limit).
    const outcomes = await underAttack('2 one caller holds the pool', async () => {
      const codes: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        codes.push(
          errorCode(await call(attacker, 'json_query', { expression: EXPENSIVE_QUERY, data: TEN })),
        );
      }
      return codes;
    });
    for (const code of outcomes) expect(code).toBeDefined();
    figures['2 one caller holds the pool'] = {
      ...figures['2 one caller holds the pool'],
      'attacker answers': outcomes.join(', '),
    };
  }, 180_000);
});

/**
 * `count` sockets from `localAddress`, each sending part of a request's headers and then nothing,
 * re-opened (after a pause, as the machine is shared) whenever the server cuts one, for `ms`.
 */
function trickleAttack(
  url: URL,
  localAddress: string,
  count: number,
  ms: number,
): { ready: Promise<void>; done: Promise<void>; opened: () => number } {
  const sockets = new Set<Socket>();
  let opened = 0;
  let over = false;
  const open = (): Promise<void> =>
    new Promise((resolve) => {
      if (over) {
        resolve();
        return;
      }
      opened++;
      const socket = netConnect({ port: Number(url.port), host: url.hostname, localAddress });
      sockets.add(socket);
      socket.on('connect', () => {
        socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: `);
        resolve();
      });
      socket.on('error', () => undefined);
      socket.resume();
      socket.once('close', () => {
        sockets.delete(socket);
        resolve();
        if (!over) setTimeout(() => void open(), 250);
      });
    });
  const ready = Promise.all(Array.from({ length: count }, open)).then(() => undefined);
  const done = new Promise<void>((resolve) => {
    setTimeout(() => {
      over = true;
      for (const socket of sockets) socket.destroy();
      resolve();
    }, ms);
  });
  return { ready, done, opened: () => opened };
}

/** Whether a new connection from `localAddress` is accepted and answered (`GET /healthz`). */
function healthzFrom(url: URL, localAddress: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/healthz',
        localAddress,
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        res.resume();
        res.once('end', () => {
          resolve(res.statusCode === 200);
        });
      },
    );
    req.once('timeout', () => {
      req.destroy();
    });
    req.once('error', () => {
      resolve(false);
    });
    req.end();
  });
}
