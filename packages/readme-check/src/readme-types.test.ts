import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@toolplane/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkReadmes, type ReadmeCheck } from './readme.js';

// Every package with a README test has its examples type-checked here, all in one program: each
// package's own check parsed and bound the whole workspace's sources again (about 40 s of CPU per
// package on a loaded 2-core machine, the suite's heaviest files).

/** The packages (and examples) with a `src/readme.test.ts`. */
function readmePackages(): string[] {
  return ['packages', 'examples'].flatMap((parent) =>
    readdirSync(join(repoRoot, parent))
      .map((name) => join(repoRoot, parent, name))
      .filter((dir) => existsSync(join(dir, 'src', 'readme.test.ts')))
      .sort(),
  );
}

const packages = readmePackages();
let checks: Map<string, ReadmeCheck>;

beforeAll(() => {
  checks = checkReadmes(packages);
}, 300_000);

describe('README examples', () => {
  it('are found for the packages with a README test', () => {
    expect(packages.map((dir) => dir.split(/[\\/]/).at(-1))).toEqual(
      expect.arrayContaining(['ai-sdk', 'anthropic', 'gemini', 'langchain', 'openai', 'toolkit']),
    );
  });

  it.each(packages.map((dir) => [dir.split(/[\\/]/).at(-1) ?? dir, dir] as const))(
    'of %s type-check as written',
    (_name, dir) => {
      expect(checks.get(dir)?.diagnostics).toEqual([]);
    },
  );
});
