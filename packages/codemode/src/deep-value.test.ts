import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeModeTools } from './code-tools.js';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { CodeModeError } from './errors.js';
import { localToolkit } from './testing/local-toolkit.js';

// A value crosses out of the sandbox as JSON text and is parsed on the host; whoever gets it
// writes it as JSON again (run_code's answer, a gateway's response). Nested past what the host's
// own JSON.stringify can walk, it would fail there, far from the program that made it.

let code: CodeMode;
beforeAll(() => {
  code = createCodeMode(localToolkit().toolkit, { timeoutMs: 60_000 });
});
afterAll(async () => {
  await code.close();
});

const nested = (depth: number, open: string): string =>
  `let v = 1; for (let i = 0; i < ${String(depth)}; i++) v = ${open}; return v;`;

describe('a deeply nested value', () => {
  it('is refused as resource_exhausted, for objects and arrays alike', async () => {
    for (const open of ['{ v }', '[v]']) {
      const error = await code.run(nested(6_000, open)).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(CodeModeError);
      expect(error).toMatchObject({ code: 'resource_exhausted' });
      expect((error as CodeModeError).message).toContain('1000 levels');
    }
  });

  it('is answered by run_code as resource_exhausted, not as an internal failure', async () => {
    const [, , runCode] = codeModeTools(code);
    const result = await runCode.run({ code: nested(6_000, '{ v }') });
    expect(result).toMatchObject({ isError: true, code: 'resource_exhausted' });
  });

  it('passes at the bound, brackets inside strings not counted', async () => {
    const { value } = await code.run(
      nested(999, '[v]').replace('return v;', `return [v, '[{'.repeat(2000), { k: '\\\\"[' }];`),
    );
    const [deepest, text, object] = value as [unknown, string, unknown];
    expect(JSON.stringify(deepest)).toBe(`${'['.repeat(999)}1${']'.repeat(999)}`);
    expect(text).toBe('[{'.repeat(2000));
    expect(object).toEqual({ k: '\\"[' });
  });
});
