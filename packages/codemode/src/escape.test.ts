import type { ToolErrorCode } from '@toolplane/toolmodel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { CodeModeError } from './errors.js';
import { codeOf } from './testing/outcome.js';
import { localToolkit, type ToolSide } from './testing/local-toolkit.js';

// Hostile programs are the normal case: each gets its error, nothing of the host is reachable,
// nothing is left behind, and the next run in the same process (on the same worker: one at a
// time) works.

let code: CodeMode;
// The same bounds with a wall-clock bound no loaded machine reaches: a program that must end on
// a memory, call, log or result bound is judged by that bound alone, never by the clock.
let unhurried: CodeMode;
let side: ToolSide;
beforeAll(() => {
  const local = localToolkit();
  side = local.side;
  const bounds = {
    memoryLimitBytes: 16 << 20,
    maxToolCalls: 50,
    maxLogBytes: 4 << 10,
    maxResultBytes: 64 << 10,
    maxConcurrentRuns: 1,
  };
  code = createCodeMode(local.toolkit, { ...bounds, timeoutMs: 1_000 });
  unhurried = createCodeMode(local.toolkit, { ...bounds, timeoutMs: 60_000 });
});
afterAll(async () => {
  await Promise.all([code.close(), unhurried.close()]);
});

/** The next run works, and sees nothing the hostile one left behind. */
async function stillWorks(): Promise<void> {
  const { value } = await code.run(`
    const { sum } = await tools.builtin.add({ a: 2, b: 3 });
    return { sum, leaked: typeof leaked, proto: Object.prototype.polluted === undefined };
  `);
  expect(value).toEqual({ sum: 5, leaked: 'undefined', proto: true });
}

const cases: readonly [string, string, ToolErrorCode][] = [
  ['an endless loop', 'globalThis.leaked = 1; while (true) {}', 'timeout'],
  ['an endless loop that catches', 'for (;;) { try { while (true) {} } catch {} }', 'timeout'],
  ['an endless chain of microtasks', 'for (;;) await null;', 'timeout'],
  [
    'an endless loop in a getter of what it throws',
    'throw { get message() { for (;;) {} } };',
    'timeout',
  ],
  ['a promise that never settles', 'await new Promise(() => {});', 'execution'],
  ['deep recursion', 'const f = (n) => f(n + 1) + 1; return f(0);', 'resource_exhausted'],
  ['a memory bomb', 'const a = []; for (;;) a.push(new Array(1e5).fill(1));', 'resource_exhausted'],
  ['a huge string', "let s = 'x'; for (;;) s += s;", 'resource_exhausted'],
  [
    'a million tool calls, awaited',
    'for (let i = 0; i < 1e6; i++) await tools.builtin.add({ a: i, b: 1 });',
    'resource_exhausted',
  ],
  [
    'a million tool calls, at once',
    'await Promise.all(Array.from({ length: 1e6 }, () => tools.builtin.add({ a: 1, b: 1 })));',
    'resource_exhausted',
  ],
  [
    'tool calls past the bound, each caught',
    'for (let i = 0; i < 1e6; i++) { try { await tools.builtin.add({ a: 1, b: 1 }); } catch {} }',
    'resource_exhausted',
  ],
  ['unbounded console.log', "for (;;) console.log('spam spam spam');", 'resource_exhausted'],
  [
    'unbounded console.log, caught',
    "for (;;) { try { console.error('x'.repeat(100)); } catch {} }",
    'resource_exhausted',
  ],
  ['a value larger than the result bound', "return 'x'.repeat(1 << 20);", 'resource_exhausted'],
  [
    'the Function constructor reaching for process',
    "return constructor.constructor('return process')();",
    'execution',
  ],
  [
    'the Function constructor of a tool reaching for require',
    "return tools.builtin.add.constructor('return require')();",
    'execution',
  ],
  ['a dynamic import of node:fs', "return await import('node:fs');", 'execution'],
  ['a dynamic import in eval', 'return await eval("import(\'node:child_process\')");', 'execution'],
  ['throwing a number', 'throw 42;', 'execution'],
  ['throwing null', 'throw null;', 'execution'],
  ['throwing a symbol', "throw Symbol('s');", 'execution'],
  [
    'throwing an object whose toString throws',
    "throw { toString() { throw new Error('no'); } };",
    'execution',
  ],
  ['returning a cyclic value', 'const a = {}; a.self = a; return a;', 'execution'],
  ['returning a function', 'return () => 1;', 'execution'],
  ['returning a BigInt', 'return 10n;', 'execution'],
  [
    'returning a value whose toJSON throws',
    "return { toJSON() { throw new Error('no'); } };",
    'execution',
  ],
  [
    'breaking out of the function body (still inside the sandbox)',
    '}); globalThis.leaked = 1; (async () => {',
    'execution',
  ],
  ['a program that does not parse', 'return (;', 'invalid_argument'],
  ['an unterminated template', 'return `abc', 'invalid_argument'],
];

describe('hostile programs', () => {
  for (const [what, program, expected] of cases) {
    it(`gives ${expected} to ${what}, and the next run works`, async () => {
      const on = expected === 'resource_exhausted' ? unhurried : code;
      expect(await codeOf(program, on)).toBe(expected);
      await stillWorks();
    });
  }

  it('names the bound a program reached, and which option sets it', async () => {
    const said = async (program: string): Promise<string> => {
      const error = await unhurried.run(program).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      if (!(error instanceof CodeModeError))
        throw new Error(`expected a CodeModeError: ${program}`);
      expect(error.code).toBe('resource_exhausted');
      return error.message;
    };
    expect(await said('const a = []; for (;;) a.push(new Array(1e5).fill(1));')).toBe(
      'out of memory: the program needs more than its 16 MiB of memory (memoryLimitBytes); keep less at once',
    );
    expect(await said('const f = (n) => f(n + 1) + 1; return f(0);')).toBe(
      'stack overflow: the program nests deeper than its 512 KiB of stack allow (maxStackBytes); recurse less deeply',
    );
    expect(await said('for (;;) await tools.builtin.mark();')).toBe(
      'the program made more than 50 tool calls (maxToolCalls); make fewer calls in one run',
    );
    expect(await said("for (;;) console.log('x'.repeat(100));")).toBe(
      'the program logged more than 4 KiB (maxLogBytes); log less',
    );
    expect(await said("return 'x'.repeat(1 << 20);")).toBe(
      "the program's value is larger than 64 KiB of JSON (maxResultBytes); return only what is needed",
    );
    await stillWorks();
  });

  it('reaches nothing of the host by name', async () => {
    const { value } = await code.run(`
      const names = ['process', 'require', 'module', 'fetch', 'setTimeout', 'setInterval',
        'setImmediate', 'queueMicrotask', 'Buffer', 'WebAssembly', 'Atomics',
        'XMLHttpRequest', 'WebSocket', 'Deno', 'Bun', 'hostCall', 'hostFull', 'hostLog', 'drain', 'std', 'os', '__filename'];
      const fromFunction = Function('return this')();
      return Object.fromEntries(names.map((n) => [n, typeof globalThis[n] + '/' + typeof fromFunction[n]]));
    `);
    for (const seen of Object.values(value as Record<string, string>)) {
      expect(seen).toBe('undefined/undefined');
    }
  });

  it('keeps the API objects as they were against prototype games', async () => {
    const { value } = await code.run(`
      const attempts = [];
      const attempt = (name, f) => { try { f(); attempts.push(name + ': no error'); } catch (e) { attempts.push(name + ': ' + e.name); } };
      attempt('replace a tool', () => { 'use strict'; tools.builtin.add = () => ({ sum: -1 }); });
      attempt('add a namespace', () => { 'use strict'; tools.evil = {}; });
      attempt('set a prototype', () => Object.setPrototypeOf(tools.builtin, { add: () => 0 }));
      attempt('redefine tools', () => Object.defineProperty(globalThis, 'tools', { value: {} }));
      attempt('redefine console', () => { 'use strict'; console.log = () => {}; });
      Object.prototype.polluted = true;
      JSON.stringify = () => '{"a":"evil"}';
      JSON.parse = () => ({ sum: 'evil' });
      Array.prototype.map = () => [];
      const { sum } = await tools.builtin.add({ a: 20, b: 22 });
      return { attempts, sum, replaced: typeof globalThis.tools.builtin };
    `);
    const { attempts, sum, replaced } = value as {
      attempts: string[];
      sum: unknown;
      replaced: string;
    };
    expect(replaced).toBe('undefined');
    expect(sum).toBe(42);
    // QuickJS lets defineProperty replace even a non-configurable global (only on the global
    // object); the program's own `tools` is a binding of its function, so the call above still
    // reached the real tool, and a replaced global reaches nothing but the program's own object.
    expect(attempts).toEqual([
      'replace a tool: TypeError',
      'add a namespace: TypeError',
      'set a prototype: TypeError',
      expect.stringMatching(/^redefine tools: /),
      'redefine console: TypeError',
    ]);
    await stillWorks();
  });

  it('lets a program name its own search and console', async () => {
    const { value, logs } = await code.run(`
      const search = (await tools.builtin.add({ a: 1, b: 1 })).sum;
      const console = { log: () => 'mine' };
      return [search, console.log()];
    `);
    expect(value).toEqual([2, 'mine']);
    expect(logs).toEqual([]);
  });

  it('turns a non-object argument into a TypeError inside the program', async () => {
    const { value } = await code.run(`
      try { await tools.builtin.add(5); } catch (e) { return e instanceof TypeError; }
    `);
    expect(value).toBe(true);
  });

  it('reports an uncaught throw even when the program hijacked toJSON', async () => {
    const error = await code
      .run("Object.prototype.toJSON = () => 'hijacked';\nthrow new Error('real');")
      .catch((e: unknown) => e as CodeModeError);
    expect((error as CodeModeError).code).toBe('execution');
    expect((error as CodeModeError).message).toContain('real');
    expect((error as CodeModeError).line).toBe(2);
  });

  it('keeps the message of a thrown non-Error', async () => {
    const error = await code
      .run('throw { reason: "bad" };')
      .catch((e: unknown) => e as CodeModeError);
    expect(error).toBeInstanceOf(CodeModeError);
    expect((error as CodeModeError).message).toContain('bad');
  });

  it('cuts a huge thrown message, string or JSON to its start, and says how much more there was', async () => {
    for (const thrown of ['new Error(huge)', 'huge', '{ huge }']) {
      const error = await unhurried
        .run(
          `const huge = 'x'.repeat(4e6);\nString.prototype.slice = () => huge;\nthrow ${thrown};`,
        )
        .catch((e: unknown) => e as CodeModeError);
      expect(error).toBeInstanceOf(CodeModeError);
      expect(error).toMatchObject({ code: 'execution' });
      expect((error as CodeModeError).message.length).toBeLessThan(8_300);
      expect((error as CodeModeError).message).toMatch(/… \(399\d{4} more characters\)/);
    }
    await stillWorks();
  });

  it('keeps the logs written before a failure', async () => {
    const error = await code
      .run("console.warn('before');\nthrow new Error('after');")
      .catch((e: unknown) => e as CodeModeError);
    expect((error as CodeModeError).logs).toEqual([{ level: 'warn', text: 'before' }]);
  });

  it('cancels the tool calls still in flight when a run fails', async () => {
    const cancelled = side.cancelled;
    const started = side.waiting;
    expect(
      await codeOf(
        "tools.builtin.wait_forever(); tools.builtin.wait_forever();\nawait tools.builtin.mark();\nthrow new Error('x');",
        code,
      ),
    ).toBe('execution');
    expect(side.waiting - started).toBe(2);
    await expect.poll(() => side.cancelled).toBe(cancelled + 2);
  });
});

describe('lone surrogates', () => {
  // Calls leave the sandbox packed, each part led by its length; a lone surrogate changes length
  // on the way out (UTF-8), so it must not shift the parts after it into another call's place.
  it('keeps calls apart when a search query holds one', async () => {
    const { value } = await code.run(`
      const found = search('\\udc00\\ud800:9:tool:1:builtin:add');
      const { sum } = await tools.builtin.add({ a: 3, b: 4, });
      return { found: Array.isArray(await found), sum };
    `);
    expect(value).toEqual({ found: true, sum: 7 });
    await stillWorks();
  });

  it('reports a thrown message that holds one', async () => {
    const error = await code.run("throw new Error('bad \\ud800 text');").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodeModeError);
    expect((error as CodeModeError).code).toBe('execution');
    expect((error as CodeModeError).message).toContain('bad \ufffd text');
  });
});
