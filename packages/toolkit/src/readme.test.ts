import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeDiagnostics, tsBlocks, typeCheck } from '@toolplane/readme-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The README's examples are type-checked with every other package's README, in one program, by
// packages/readme-check/src/readme-types.test.ts; the helpers they leave to the reader are
// declared in src/readme-prelude.d.ts.

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const packagesDir = dirname(packageDir);
/** The root README's ESM section, as package READMEs link to it from the npm page. */
const ESM_SECTION_URL = 'https://github.com/toolplane/toolplane#esm-only';

/** Compiler options as a user's tsconfig.json `compilerOptions` would give them. */
function tsconfig(compilerOptions: Record<string, unknown>): ts.CompilerOptions {
  const { options, errors } = ts.convertCompilerOptionsFromJson(compilerOptions, packagesDir);
  expect(describeDiagnostics(errors)).toEqual([]);
  return options;
}

describe('toolkit README', () => {
  it('has at least four examples', () => {
    expect(
      tsBlocks(readFileSync(join(packageDir, 'README.md'), 'utf8')).length,
    ).toBeGreaterThanOrEqual(4);
  });

  it('shows search returning a page of results with a cursor, not an array', () => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    expect(readme).toContain('const { results, nextCursor } = await toolkit.search(');
  });
});

describe('ESM-only packages', () => {
  // A consumer inside the workspace: node_modules/@toolplane/toolkit is the package itself.
  const consumer = join(packagesDir, 'gateway', 'src', '__consumer__.ts');
  const source = `import { createToolkit } from '@toolplane/toolkit';\nexport const toolkit = createToolkit();\n`;

  it('fails with TS2307 under the old moduleResolution node (node10)', () => {
    const options = tsconfig({
      module: 'commonjs',
      moduleResolution: 'node',
      // TypeScript 6 deprecates the setting; users of TypeScript 5 meet it without a warning.
      ignoreDeprecations: '6.0',
      noEmit: true,
      types: [],
    });
    const diagnostics = typeCheck(new Map([[consumer, source]]), options);
    expect(diagnostics.some((line) => line.includes(': TS2307 '))).toBe(true);
  });

  it.each([
    ['nodenext', { module: 'nodenext' }],
    ['node16', { module: 'node16' }],
    ['bundler', { module: 'preserve' }],
  ])('resolves with the one-line fix, moduleResolution %s', (_name, fix) => {
    // The workspace's source condition stands in for a build's dist/.
    const options = tsconfig({ ...fix, customConditions: ['@toolplane/source'] });
    const found = ts.resolveModuleName('@toolplane/toolkit', consumer, options, ts.sys);
    expect(found.resolvedModule?.resolvedFileName).toBe(join(packageDir, 'src', 'index.ts'));
  });

  // Said once, with the one-line fix, in the root README; every published package's README
  // links to that section (absolute, so the link works on the npm page) rather than repeating it.
  it('is said, with the one-line fix, in the root README, and every published README links to it', () => {
    const root = readFileSync(join(packagesDir, '..', 'README.md'), 'utf8');
    expect(root).toMatch(/^## ESM only$/m);
    const section = root.slice(root.indexOf('## ESM only')).replace(/\s+/g, ' ');
    expect(section).toContain('TS2307');
    expect(section).toContain('"module": "nodenext"');

    const published = readdirSync(packagesDir).filter((name) => {
      const manifest = JSON.parse(
        readFileSync(join(packagesDir, name, 'package.json'), 'utf8'),
      ) as { private?: boolean };
      return manifest.private !== true;
    });
    expect(published.length).toBeGreaterThan(0);
    const unlinked = published.filter((name) => {
      const text = readFileSync(join(packagesDir, name, 'README.md'), 'utf8');
      return !(text.includes('ESM only') && text.includes(ESM_SECTION_URL));
    });
    expect(unlinked).toEqual([]);
    const repeated = published.filter((name) =>
      readFileSync(join(packagesDir, name, 'README.md'), 'utf8').includes('TS2307'),
    );
    expect(repeated).toEqual([]);
  });
});
