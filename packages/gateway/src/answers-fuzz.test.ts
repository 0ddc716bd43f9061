import { describe, expect, it } from 'vitest';
import {
  messagesOf,
  useAnswering,
  openSession as openSessionAt,
  openStdio as openStdioOn,
  post as postTo,
  withId,
} from './testing/answer-clients.js';

// Every request gets an answer, whatever a client sends: thousands of mutated requests over
// HTTP and over stdio, from fixed seeds.

const { toolkit, http } = useAnswering();

const post = (body: string, session: string | undefined) => postTo(http.url, body, session);
const openSession = (): Promise<string> => openSessionAt(http.url);
const openStdio = () => openStdioOn(toolkit);

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const VALID: readonly Record<string, unknown>[] = [
  { method: 'ping' },
  { method: 'tools/list', params: {} },
  { method: 'tools/list', params: { cursor: 'x' } },
  { method: 'tools/call', params: { name: 'builtin__echo', arguments: { text: 'hi' } } },
  { method: 'tools/call', params: { name: 'fx__echo', arguments: { text: 'hi' } } },
  { method: 'tools/call', params: { name: 'fx__add', arguments: { a: 1, b: 2 } } },
  { method: 'prompts/list' },
  { method: 'prompts/get', params: { name: 'fx__echo', arguments: { text: 'x' } } },
  { method: 'resources/list' },
  { method: 'resources/templates/list' },
  { method: 'resources/read', params: { uri: 'fixture://readme' } },
  { method: 'resources/subscribe', params: { uri: 'fixture://readme' } },
  { method: 'logging/setLevel', params: { level: 'info' } },
  {
    method: 'completion/complete',
    params: {
      ref: { type: 'ref/prompt', name: 'fx__echo' },
      argument: { name: 'text', value: '' },
    },
  },
];

const ODD_VALUES: readonly unknown[] = [
  null,
  true,
  -1,
  1.5,
  2 ** 60,
  '',
  'x'.repeat(100_000),
  [],
  [1, { a: 2 }],
  {},
  JSON.parse('{"__proto__": {"polluted": true}}'),
  { nested: { deeper: { deepest: [[[[{}]]]] } } },
];

/** A 3 MB string: within both transports' 4 MiB limits, a body near the size they accept. */
const HUGE = 'h'.repeat(3_000_000);

/**
 * The `key`th mutated message (`key` unique in the run): the message, and the ID to expect an
 * answer under: the string or integer it carries, `null` when it carries an ID that cannot be
 * told, `undefined` when no answer is due (a notification, or a response).
 */
function mutateOne(key: number, next: () => number): { message: unknown; id: unknown } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  // A copy each time, so no two places share (and grow) one value.
  const odd = (): unknown => structuredClone(pick(ODD_VALUES));
  // An own `__proto__` member, as JSON text from a hostile client carries it.
  const setOwn = (target: Record<string, unknown>, name: string, value: unknown): void => {
    Object.defineProperty(target, name, { value, enumerable: true, writable: true });
  };
  const base = structuredClone(pick(VALID));
  const message: Record<string, unknown> = { jsonrpc: '2.0', id: 100_000 + key, ...base };
  const params = (message.params ?? {}) as Record<string, unknown>;
  for (let round = 1 + Math.floor(next() * 3); round > 0; round--) {
    switch (Math.floor(next() * 10)) {
      case 0:
        setOwn(message, pick(['extra', 'result', 'error', '__proto__', 'meta']), odd());
        break;
      case 1:
        Reflect.deleteProperty(message, pick(['jsonrpc', 'id', 'method', 'params']));
        break;
      case 2:
        message.jsonrpc = pick(['1.0', 2, null, '2.0 ', '']);
        break;
      case 3:
        message.id = pick([
          `s-${key}`,
          `${'i'.repeat(10_000)}-${key}`,
          -key - 1,
          2 ** 60 + key * 1024,
          (key + 0.5) / 7,
          Number.POSITIVE_INFINITY,
          null,
          { id: key },
          [key],
        ]);
        break;
      case 4:
        message.method = pick(['', 'nope', 'tools/call ', 'initialize', 5, null, 'x'.repeat(1000)]);
        break;
      case 5:
        message.params = odd();
        break;
      case 6:
        params[pick(['name', 'arguments', 'uri', 'cursor', 'level', 'ref', 'argument', '_meta'])] =
          odd();
        message.params = params;
        break;
      case 7:
        params._meta = pick([{ progressToken: {} }, { progressToken: key }, 'meta', []]);
        message.params = params;
        break;
      case 8:
        setOwn(params, '__proto__', { admin: true });
        message.params = params;
        break;
      default:
        if (typeof message.params === 'object' && message.params !== null)
          (message.params as Record<string, unknown>).arguments = odd();
    }
  }
  const id = message.id;
  // JSON writes Infinity as null; 2 ** 60 + … is past the safe integers, whose JSON text the
  // gateway cannot tell it read exactly, so it is answered as an ID that cannot be told (null).
  const told = typeof id === 'string' || Number.isSafeInteger(id);
  // A response (a result or an error, no method) is never answered; anything else with an ID is.
  const response = !('method' in message) && ('result' in message || 'error' in message);
  return { message, id: !('id' in message) || response ? undefined : told ? id : null };
}

/**
 * The `index`th fuzz case as JSON text, and the IDs an answer is due under (see
 * {@link mutateOne}): mostly one mutated message; every 10th a batch of 2 to 4 (nested garbage
 * among them); every 250th one with a 3 MB string in it.
 */
function mutate(index: number, next: () => number): { text: string; ids: unknown[] } {
  if (index % 10 === 9) {
    const cases = Array.from({ length: 2 + Math.floor(next() * 3) }, (_, j) =>
      mutateOne(index * 10 + j, next),
    );
    const batch: unknown[] = cases.map((c) => c.message);
    if (next() < 0.3) batch.push(pick(next, [[[]], 'x', 5, null, [{ jsonrpc: '2.0' }]]));
    const nested = batch.length > cases.length ? [null] : [];
    return {
      text: JSON.stringify(batch),
      ids: [...cases.flatMap((c) => (c.id === undefined ? [] : [c.id])), ...nested],
    };
  }
  const { message, id } = mutateOne(index * 10, next);
  if (index % 250 === 0) (message as Record<string, unknown>).huge = HUGE;
  return { text: JSON.stringify(message), ids: id === undefined ? [] : [id] };
}

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

/** Whether `answered` (JSON-RPC messages) holds an answer for each ID of `ids` (`null` too). */
function answersAll(ids: readonly unknown[], answered: readonly unknown[]): boolean {
  const left = answered.map((m) => (m as { id?: unknown }).id);
  return ids.every((id) => {
    const at = left.indexOf(id);
    if (at >= 0) left.splice(at, 1);
    return at >= 0;
  });
}

const FUZZ_COUNT = 3_000;

describe('fuzzing', () => {
  it(`answers every one of ${FUZZ_COUNT} mutated requests over HTTP`, async () => {
    const next = random(2026);
    const cases = Array.from({ length: FUZZ_COUNT }, (_, i) => mutate(i, next));
    const problems: string[] = [];
    // What the answers were: the cases reach every kind of answer, not only one refusal.
    const seen = new Set<string>();
    // Sessions of 100 cases each, sent 25 at a time: a mutated `initialize` or a refused
    // session does not hide the rest.
    for (let start = 0; start < cases.length; start += 100) {
      const session = await openSession();
      const chunk = cases.slice(start, start + 100);
      for (let at = 0; at < chunk.length; at += 25) {
        await Promise.all(
          chunk.slice(at, at + 25).map(async ({ text, ids }) => {
            const answer = await post(text, session);
            if (answer === undefined) {
              problems.push(`no HTTP answer: ${text.slice(0, 200)}`);
              return;
            }
            const answered = messagesOf(answer);
            for (const m of answered) {
              const { error } = m as { error?: { code?: unknown } };
              seen.add(error === undefined ? 'result' : String(error.code));
            }
            if (answer.status >= 500) problems.push(`${answer.status}: ${text.slice(0, 200)}`);
            // A POST refused as a whole (4xx) answers every request in it with one error.
            const whole = answer.status >= 400 && answered.length === 1 && ids.length > 0;
            const under = (answered[0] as { id?: unknown } | undefined)?.id;
            if (whole ? under !== null && !ids.includes(under) : !answersAll(ids, answered)) {
              problems.push(`no JSON-RPC answer (${answer.status}): ${text.slice(0, 200)}`);
            }
          }),
        );
      }
    }
    expect([...seen].sort()).toEqual(['-32600', '-32601', '-32602', 'result']);
    expect({ unanswered: problems.length, first: problems.slice(0, 5) }).toEqual({
      unanswered: 0,
      first: [],
    });
  }, 180_000);

  it(`answers every one of ${FUZZ_COUNT} mutated requests over stdio`, async () => {
    const next = random(2027);
    const cases = Array.from({ length: FUZZ_COUNT }, (_, i) => mutate(i, next));
    const problems: string[] = [];
    // Lanes of 100 cases, 10 at a time, each on a stdio gateway of its own (a mutated
    // `initialize` may not be answered twice in one session). Within a lane one case at a time,
    // so an answer under the ID `null` can be told apart from another case's.
    const lane = async (chunk: readonly { text: string; ids: unknown[] }[]): Promise<void> => {
      const stdio = await openStdio();
      try {
        for (const [index, { text, ids }] of chunk.entries()) {
          stdio.send(text);
          for (const id of ids) {
            if ((await stdio.next(withId(id))) === undefined) {
              problems.push(`no answer under ${String(id).slice(0, 20)}: ${text.slice(0, 200)}`);
            }
          }
          const sentinel = `sentinel-${index}`;
          stdio.send(JSON.stringify({ jsonrpc: '2.0', id: sentinel, method: 'ping' }));
          if ((await stdio.next(withId(sentinel))) === undefined) {
            problems.push(`the session stopped answering after: ${text.slice(0, 200)}`);
            return;
          }
          // A refusal under `null` of a case that expected none came before the sentinel's answer.
          stdio.discard(withId(null));
        }
      } finally {
        await stdio.close();
      }
    };
    for (let start = 0; start < cases.length; start += 1_000) {
      const lanes = [];
      for (let at = start; at < Math.min(start + 1_000, cases.length); at += 100) {
        lanes.push(lane(cases.slice(at, at + 100)));
      }
      await Promise.all(lanes);
    }
    expect({ unanswered: problems.length, first: problems.slice(0, 5) }).toEqual({
      unanswered: 0,
      first: [],
    });
  }, 180_000);
});
