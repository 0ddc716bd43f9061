import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runInSession } from '@toolplane/toolkit';
import { errorMessageOf } from '@toolplane/toolmodel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { CodeModeError } from './errors.js';
import { localToolkit, ORDERS, type ToolSide } from './testing/local-toolkit.js';

let code: CodeMode;
let side: ToolSide;
beforeAll(() => {
  const local = localToolkit();
  side = local.side;
  code = createCodeMode(local.toolkit, { timeoutMs: 5_000 });
});
afterAll(async () => {
  await code.close();
});

async function failure(run: Promise<unknown>): Promise<CodeModeError> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CodeModeError);
  return error as CodeModeError;
}

describe('createCodeMode', () => {
  it('returns the value of a program that calls tools and filters their results', async () => {
    const result = await code.run(`
      const orders = await tools.builtin.list_orders();
      const big = orders.filter((o) => o.total > 90).map((o) => o.id);
      const { sum } = await tools.builtin.add({ a: big.length, b: 1 });
      console.log('found', big.length, { big });
      return { big, sum };
    `);
    const big = ORDERS.filter((o) => o.total > 90).map((o) => o.id);
    expect(result.value).toEqual({ big, sum: big.length + 1 });
    expect(result.logs).toEqual([
      { level: 'log', text: `found ${String(big.length)} ${JSON.stringify({ big })}` },
    ]);
    expect(result.calls.total).toBe(2);
    expect(result.calls.byTool['builtin:add']).toMatchObject({ calls: 1, errors: 0 });
  });

  it('gives a tool without structured content its text', async () => {
    const { value } = await code.run(`return await tools.builtin.greet({ name: 'ada' });`);
    expect(value).toBe('hello ada');
  });

  it('names tools by the identifier rule', async () => {
    expect(code.tools()).toContainEqual({
      namespace: 'builtin',
      name: 'get_sum_v2',
      id: 'builtin:get-sum.v2',
    });
    const { value } = await code.run('return tools.builtin.get_sum_v2();');
    expect(value).toBe(42);
  });

  it('throws a failed tool call inside the program as an Error it can catch', async () => {
    const { value } = await code.run(`
      try { await tools.builtin.fail(); return 'no'; }
      catch (error) { return { isError: error instanceof Error, code: error.code, message: error.message }; }
    `);
    expect(value).toMatchObject({ isError: true, code: 'execution' });
  });

  it('says which tool a program called that the API has not, while typeof still says undefined', async () => {
    const missing = await failure(code.run('return await tools.builtin.nope({});'));
    expect(missing).toMatchObject({ code: 'execution', line: 1 });
    expect(missing.message).toContain('tools.builtin.nope is not a tool of this API');
    expect(missing.message).toContain('get_sum_v2');
    const namespace = await failure(
      code.run('\nconst x = 1;\nawait tools.github.create_issue({});'),
    );
    expect(namespace).toMatchObject({ code: 'execution', line: 3 });
    expect(namespace.message).toContain('tools.github is not a namespace of this API');
    const { value } = await code.run(
      "return [typeof tools.builtin.nope, typeof tools.github, 'nope' in tools.builtin];",
    );
    expect(value).toEqual(['undefined', 'undefined', false]);
    // Another line's TypeError gets no hint.
    const other = await failure(code.run('const f = 1;\nreturn f();'));
    expect(other.message).not.toContain('is not a tool');
  });

  it('reads a tool named with brackets too, and points a name its server spells to the API spelling', async () => {
    const respelled = await failure(code.run('return await tools.builtin["get-sum.v2"]();'));
    expect(respelled.message).toContain(
      'tools.builtin["get-sum.v2"] is tools.builtin.get_sum_v2 in this API: names are made JavaScript identifiers',
    );
    const missing = await failure(code.run("return await tools['builtin']['no pe']();"));
    expect(missing.message).toContain('tools.builtin["no pe"] is not a tool of this API');
    const namespace = await failure(code.run('return await tools["git-hub"].x();'));
    expect(namespace.message).toContain('tools["git-hub"] is not a namespace of this API');
  });

  it('rejects arguments the schema refuses, inside the program', async () => {
    const { value, calls } = await code.run(`
      try { await tools.builtin.add({ a: 'x' }); } catch (error) { return error.code; }
    `);
    expect(value).toBe('validation');
    expect(calls.errors).toBe(1);
  });

  it('finds tools with search, limited by the filter', async () => {
    const { value } = await code.run(`return await search('adds two numbers');`);
    expect(value).toContainEqual(
      expect.objectContaining({ id: 'builtin:add', call: 'tools.builtin.add' }),
    );
    const narrow = createCodeMode(localToolkit().toolkit, { filter: { tags: ['odd'] } });
    try {
      expect(narrow.tools().map((tool) => tool.id)).toEqual(['builtin:get-sum.v2']);
      const found = await narrow.run(`return (await search('adds two numbers')).map((t) => t.id);`);
      expect(found.value).not.toContain('builtin:add');
      const { value: hidden } = await narrow.run('return typeof tools.builtin.add;');
      expect(hidden).toBe('undefined');
    } finally {
      await narrow.close();
    }
  });

  it('makes the calls in the caller session', async () => {
    side.sessions.length = 0;
    await runInSession({ id: 'session-7' }, () =>
      code.run('await tools.builtin.add({ a: 1, b: 2 });'),
    );
    expect(side.sessions).toEqual(['session-7']);
  });

  it('refuses a stack bound past the stack of the engine itself', () => {
    const made = (): unknown => createCodeMode(localToolkit().toolkit, { maxStackBytes: 8 << 20 });
    expect(made).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('refuses a timeout longer than a timer can wait', () => {
    // Node fires a longer timer at once, which timed every run out as it started.
    const made = (): unknown => createCodeMode(localToolkit().toolkit, { timeoutMs: 2 ** 31 });
    expect(made).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('refuses an option it does not know, naming the nearest one', () => {
    // A bound under another name was ignored: the run got the default 30 s, and no word of it.
    expect(
      errorMessageOf(
        () => createCodeMode(localToolkit().toolkit, { timeout: 5_000 } as never),
        'invalid_argument',
      ),
    ).toBe('createCodeMode: unknown option "timeout"; did you mean "timeoutMs"?');
  });

  it('fails with invalid_argument, line and column for a program that does not parse', async () => {
    const error = await failure(code.run('const a = 1;\nconst b = ;\nreturn a;'));
    expect(error.code).toBe('invalid_argument');
    expect(error.line).toBe(2);
    expect(error.column).toBeGreaterThan(0);
  });

  it('points a program that ends too early at the end of its last line', async () => {
    const ends: readonly [string, number, number][] = [
      ['return (', 1, 9],
      ['return (\n', 1, 9],
      ['return (\r\n', 1, 9],
      ['const a = 1;\nreturn (a +\n', 2, 12],
    ];
    for (const [program, line, column] of ends) {
      const error = await failure(code.run(program));
      expect(error.code).toBe('invalid_argument');
      expect({ line: error.line, column: error.column }).toEqual({ line, column });
    }
  });

  it('fails with execution and the line of an uncaught throw', async () => {
    const error = await failure(code.run('const a = 1;\n\nthrow new RangeError("too far");'));
    expect(error.code).toBe('execution');
    expect(error.message).toContain('too far');
    expect(error.line).toBe(3);
  });

  it('fails with cancelled, and cancels the tool call in flight, when the signal aborts', async () => {
    const controller = new AbortController();
    const before = side.cancelled;
    const waiting = side.waiting;
    const running = code.run('await tools.builtin.wait_forever();', { signal: controller.signal });
    await expect.poll(() => side.waiting, { timeout: 10_000 }).toBe(waiting + 1);
    controller.abort();
    const error = await failure(running);
    expect(error.code).toBe('cancelled');
    await expect.poll(() => side.cancelled).toBe(before + 1);
  });

  it('fails with timeout when a tool call outlasts the run', async () => {
    const short = createCodeMode(localToolkit().toolkit, { timeoutMs: 200 });
    try {
      const error = await failure(short.run('await tools.builtin.wait_forever();'));
      expect(error.code).toBe('timeout');
    } finally {
      await short.close();
    }
  });

  it("counts no wait for a free sandbox when none was busy, a new worker's start included", async () => {
    const fresh = createCodeMode(localToolkit().toolkit, { timeoutMs: 300 });
    try {
      const spun = await failure(fresh.run('while (true) {}'));
      expect(spun.code).toBe('timeout');
      expect(spun.message).not.toMatch(/waiting for a free sandbox/);
    } finally {
      await fresh.close();
    }
  });

  it('counts the wait for a free sandbox in the time limit, and says so', async () => {
    const local = localToolkit();
    const one = createCodeMode(local.toolkit, { timeoutMs: 1_000, maxConcurrentRuns: 1 });
    try {
      // Its one worker started and idle: the first run below spends its time running.
      expect((await one.run('return 1;')).value).toBe(1);
      const marks = local.side.marks;
      const first = failure(one.run('await tools.builtin.mark();\nwhile (true) {}'));
      await expect.poll(() => local.side.marks, { timeout: 10_000 }).toBe(marks + 1);
      // Queued behind the first: its 1000 ms run from now, not from when it gets the sandbox.
      const second = await failure(one.run('while (true) {}'));
      expect((await first).code).toBe('timeout');
      expect(second.code).toBe('timeout');
      // Either it got the sandbox with part of its time gone (`… of them waiting …`), or, on a
      // loaded machine where the first run's end comes late, all of it went waiting.
      expect(second.message).toMatch(/(of them|ms) waiting for a free sandbox/);
    } finally {
      await one.close();
    }
  });

  it('runs calls made together at once, and resumes on each answer as it comes', async () => {
    const { waiting, cancelled, marks } = side;
    const controller = new AbortController();
    // Two calls that never answer stay in flight while two quick ones are answered one by one.
    const run = code.run(
      `const slow = Promise.all([tools.builtin.wait_forever(), tools.builtin.wait_forever()]);
       await tools.builtin.mark();
       await tools.builtin.mark();
       await slow;`,
      { signal: controller.signal },
    );
    await expect.poll(() => side.marks, { timeout: 10_000 }).toBe(marks + 2);
    expect(side.waiting).toBe(waiting + 2);
    controller.abort();
    expect((await failure(run)).code).toBe('cancelled');
    await expect.poll(() => side.cancelled, { timeout: 10_000 }).toBe(cancelled + 2);
  });

  it('starts every run on a reused worker with fresh globals', async () => {
    // One worker, so the second run lands where the first one ran.
    const single = createCodeMode(localToolkit().toolkit, { maxConcurrentRuns: 1 });
    try {
      await single.run(`
        globalThis.leaked = 'from run 1';
        var declared = 1;
        Object.prototype.polluted = true;
        Array.prototype.map = null;
        JSON.parse = () => 'hijacked';
        Promise.prototype.then = null;
        const { sum } = await tools.builtin.add({ a: 1, b: 1 });
        return sum;
      `);
      const { value } = await single.run(`
        const { sum } = await tools.builtin.add({ a: 2, b: 3 });
        return {
          sum,
          leaked: typeof leaked,
          declared: typeof declared,
          polluted: 'polluted' in {},
          map: typeof [].map,
          parse: JSON.parse('[1]'),
          then: typeof Promise.prototype.then,
        };
      `);
      expect(value).toEqual({
        sum: 5,
        leaked: 'undefined',
        declared: 'undefined',
        polluted: false,
        map: 'function',
        parse: [1],
        then: 'function',
      });
    } finally {
      await single.close();
    }
  });

  it('keeps answering other callers while a program spins in a loop', async () => {
    const server: Server = createServer((_request, response) => {
      response.end('pong');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const local = localToolkit();
    // Ended by its signal, not its timeout: on a loaded machine twenty requests can take longer
    // than any timeout short enough for a test.
    const spinning = createCodeMode(local.toolkit, { timeoutMs: 60_000 });
    const stop = new AbortController();
    try {
      let ended = false;
      const marks = local.side.marks;
      const run = spinning
        .run('await tools.builtin.mark();\nwhile (true) {}', { signal: stop.signal })
        .finally(() => {
          ended = true;
        });
      // Once the mark is answered, the program spins; every request here is answered meanwhile.
      await expect.poll(() => local.side.marks, { timeout: 10_000 }).toBe(marks + 1);
      for (let i = 0; i < 20; i++) {
        const answer = await fetch(`http://127.0.0.1:${String(port)}/`).then((r) => r.text());
        expect(answer).toBe('pong');
      }
      expect(ended).toBe(false);
      stop.abort();
      const error = await failure(run);
      expect(error.code).toBe('cancelled');
    } finally {
      await spinning.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
