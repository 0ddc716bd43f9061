import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { CodeModeError } from './errors.js';
import { localToolkit } from './testing/local-toolkit.js';
import { failureOf } from './testing/outcome.js';

// A model reads the API as TypeScript declarations (describe_tool) and often writes TypeScript
// back; QuickJS runs JavaScript and says only `SyntaxError: expecting ';'`.

let code: CodeMode;
beforeAll(() => {
  code = createCodeMode(localToolkit().toolkit, { timeoutMs: 60_000 });
});
afterAll(async () => {
  await code.close();
});

const failure = (program: string): Promise<CodeModeError> => failureOf(program, code);

describe('a program written in TypeScript', () => {
  it('is refused with a message saying the program is JavaScript', async () => {
    for (const line of [
      'const total: number = 0;',
      'let rows: Order[] = [];',
      'const r = (await tools.builtin.add({ a: 1, b: 2 })) as { sum: number };',
      'const f = (o: Order) => o.total;',
      'function f(a: number): number { return a; }',
      'interface Order { id: string }',
      'type Order = { id: string };',
      'const m = new Map<string, number>();',
      'const v = globalThis!.x;',
    ]) {
      const error = await failure(`const a = 1;\n${line}\nreturn a;`);
      expect(error).toMatchObject({ code: 'invalid_argument', line: 2 });
      expect(error.message).toContain('JavaScript, not TypeScript');
    }
  });

  it('reads a long line only near the error, and answers at once', async () => {
    const long = `const a = [${'1,'.repeat(50_000)}]; let b: number = 1;\nreturn a;`;
    const error = await failure(long);
    expect(error).toMatchObject({ code: 'invalid_argument', line: 1 });
    expect(error.message).toContain('JavaScript, not TypeScript');
    const hostile = await failure(`${'):a'.repeat(100_000)}\nreturn 1;`);
    expect(hostile.code).toBe('invalid_argument');
  });

  it('gets no such note for a JavaScript syntax error', async () => {
    for (const program of ['return (;', 'const x = { a: 1, b: };', 'return a ? b : ;']) {
      const error = await failure(program);
      expect(error.code).toBe('invalid_argument');
      expect(error.message).not.toContain('TypeScript');
    }
  });
});
