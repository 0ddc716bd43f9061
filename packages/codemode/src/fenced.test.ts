import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { CodeModeError } from './errors.js';
import { localToolkit } from './testing/local-toolkit.js';

// Models often send a program the way they write one in a reply: inside a Markdown code fence.
// As JavaScript the fence is a tagged template, which fails as `TypeError: not a function`.

let code: CodeMode;
beforeAll(() => {
  code = createCodeMode(localToolkit().toolkit, { timeoutMs: 60_000 });
});
afterAll(async () => {
  await code.close();
});

describe('a program in a Markdown code fence', () => {
  it('runs as the code inside, whatever the fence names', async () => {
    for (const info of ['javascript', 'js', 'ts', '']) {
      const { value } = await code.run(
        `\`\`\`${info}\nconst { sum } = await tools.builtin.add({ a: 1, b: 2 });\nreturn sum;\n\`\`\`\n`,
      );
      expect(value).toBe(3);
    }
  });

  it('reports errors at the lines of the text sent', async () => {
    const error = await code.run('```js\nconst a = 1;\nthrow new Error("here");\n```').then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(CodeModeError);
    expect(error).toMatchObject({ code: 'execution', line: 3 });
  });

  it('leaves a fence inside the program, in a string or a comment, as it is', async () => {
    const { value } = await code.run('const md = "```js\\nx\\n```";\nreturn md;');
    expect(value).toBe('```js\nx\n```');
  });
});
