import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { CodeModeError } from './errors.js';
import { localToolkit } from './testing/local-toolkit.js';

// `code.run(program, { timeoutMs: 100 })` ran with code mode's own bound (30 s by default), and
// `code.search(query, { limt: 1 })` with the default limit: each option was ignored, silently.

let code: CodeMode;
beforeAll(() => {
  code = createCodeMode(localToolkit().toolkit, { timeoutMs: 20_000 });
});
afterAll(async () => {
  await code.close();
});

describe('the options of run and search', () => {
  it('refuses an option run does not take, saying where a bound is set', async () => {
    const error = await code.run('return 1;', { timeoutMs: 100 } as never).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(CodeModeError);
    expect(error).toMatchObject({
      code: 'invalid_argument',
      message:
        'code.run: unknown option "timeoutMs"; bounds are set per code mode: createCodeMode(source, { timeoutMs })',
    });
    await expect(code.run('return 1;', { sesionKey: 's' } as never)).rejects.toMatchObject({
      code: 'invalid_argument',
      message: 'code.run: unknown option "sesionKey"; did you mean "sessionKey"?',
    });
    expect((await code.run('return 1;', { meta: {}, sessionKey: 's' })).value).toBe(1);
  });

  it('refuses an option search does not take', async () => {
    await expect(code.search('add', { limt: 1 } as never)).rejects.toMatchObject({
      code: 'invalid_argument',
      message: 'code.search: unknown option "limt"; did you mean "limit"?',
    });
    expect(await code.search('add', { limit: 1 })).toHaveLength(1);
  });
});
