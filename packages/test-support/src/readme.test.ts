import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeReadme, packageOptions, tsBlocks, typeCheck } from './readme.js';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

describe('tsBlocks', () => {
  it('returns the ts blocks in order and leaves other languages out', () => {
    const markdown =
      '# x\n\n```ts\nconst a = 1;\n```\n\n```sh\nls\n```\n\n```ts\nconst b = 2;\n```\n';
    expect(tsBlocks(markdown)).toEqual(['const a = 1;\n', 'const b = 2;\n']);
  });
});

describe('typeCheck', () => {
  it('reports a type error in a virtual file, with its line, and nothing for a sound one', () => {
    const options = { ...packageOptions(packageDir), noEmit: true };
    const bad = join(packageDir, 'src', '__readme__', 'bad.ts');
    const good = join(packageDir, 'src', '__readme__', 'good.ts');
    const found = typeCheck(
      new Map([
        [bad, "const n: number = 'text';\nexport {};\n"],
        [good, 'const n: number = 1;\nexport { n };\n'],
      ]),
      options,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/bad\.ts:1: TS2322 /);
  }, 120_000);
});

describeReadme(import.meta.url);
