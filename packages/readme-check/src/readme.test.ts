import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkReadmes, describeReadme, packageOptions, tsBlocks, typeCheck } from './readme.js';

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

describe('checkReadmes', () => {
  const root = mkdtempSync(join(tmpdir(), 'readmes-'));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** A package folder with a README of `blocks` and a tsconfig.json of `options`. */
  function pkg(name: string, blocks: string[], options: object = {}): string {
    const dir = join(root, name);
    mkdirSync(join(dir, 'src'), { recursive: true });
    const compilerOptions = { strict: true, types: [], lib: ['ES2023'], ...options };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions }));
    const readme = blocks.map((block) => '```ts\n' + block + '\n```\n').join('\n');
    writeFileSync(join(dir, 'README.md'), `# ${name}\n\n${readme}`);
    return dir;
  }

  it("gives each package its own examples' diagnostics, sharing a program or not", () => {
    const sound = pkg('sound', ['const a: number = 1;']);
    const broken = pkg('broken', ['const a = 1;', "const b: number = 'text';"]);
    const looser = pkg('looser', ['let c; c = 1;'], { strict: false, noImplicitAny: false });
    const checks = checkReadmes([sound, broken, looser]);
    expect(checks.get(sound)?.diagnostics).toEqual([]);
    expect(checks.get(looser)?.diagnostics).toEqual([]);
    const found = checks.get(broken)?.diagnostics ?? [];
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/broken[\\/]src[\\/]__readme__[\\/]block-2\.ts:1: TS2322 /);
    expect(checks.get(broken)?.blocks).toHaveLength(2);
  }, 120_000);
});

describeReadme(import.meta.url);
