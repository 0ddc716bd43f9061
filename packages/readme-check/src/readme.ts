import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Options of {@link describeReadme}. */
export interface ReadmeCheckOptions {
  /** At least this many ```ts examples (default 1). */
  readonly minExamples?: number;
  /** The opening example has at most this many lines (default 30). */
  readonly maxOpeningLines?: number;
}

/** The ```ts blocks of a markdown file, in order. */
export function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

/** The compiler options of a package's `tsconfig.json`. */
export function packageOptions(packageDir: string): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(packageDir, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (parsed === undefined) throw new Error(`no tsconfig.json in ${packageDir}`);
  return parsed.options;
}

/**
 * Type-checks `files` (path → text; the paths need not exist) and describes their diagnostics,
 * one `file:line: TSnnnn message` string each.
 */
export function typeCheck(
  files: ReadonlyMap<string, string>,
  options: ts.CompilerOptions,
): string[] {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.fileExists = (path) => files.has(path) || fileExists(path);
  host.readFile = (path) => files.get(path) ?? readFile(path);
  host.getSourceFile = (path, language, ...rest) => {
    const text = files.get(path);
    return text === undefined
      ? getSourceFile(path, language, ...rest)
      : ts.createSourceFile(path, text, language);
  };
  const program = ts.createProgram({ rootNames: [...files.keys()], options, host });
  return describeDiagnostics(
    [...files.keys()].flatMap((path) => {
      const source = program.getSourceFile(path);
      if (source === undefined) throw new Error(`${path} was not compiled`);
      return [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ];
    }),
  );
}

/** Each diagnostic as one `file:line: TSnnnn message` string (no `file:line: ` without a file). */
export function describeDiagnostics(diagnostics: readonly ts.Diagnostic[]): string[] {
  return diagnostics.map((d) => {
    const line =
      d.file === undefined || d.start === undefined
        ? ''
        : `${d.file.fileName}:${String(d.file.getLineAndCharacterOfPosition(d.start).line + 1)}: `;
    return `${line}TS${String(d.code)} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

/** What {@link checkReadmes} found in one package's README. */
export interface ReadmeCheck {
  /** Its ```ts blocks, in order. */
  readonly blocks: string[];
  /** Its text. */
  readonly readme: string;
  /** Its examples' diagnostics (see {@link typeCheck}); empty when they all type-check. */
  readonly diagnostics: string[];
}

/**
 * The file whose declarations a package's README examples may use without declaring them: the
 * helpers an example leaves to the reader (`ask`, `plot`). Appended to each example; a module
 * (it ends with `export {}`), so the package's own sources never see its names.
 */
const README_PRELUDE = join('src', 'readme-prelude.d.ts');

/** A package's README examples as virtual files inside its `src/`, where a user's code would be. */
function readmeFiles(packageDir: string): { blocks: string[]; readme: string; files: string[][] } {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  const blocks = tsBlocks(readme);
  const preludePath = join(packageDir, README_PRELUDE);
  const prelude = existsSync(preludePath) ? readFileSync(preludePath, 'utf8') : '';
  const files = blocks.map((block, i) => [
    join(packageDir, 'src', '__readme__', `block-${String(i + 1)}.ts`),
    // After the example, so a diagnostic's line is the example's own.
    `${block}\n${prelude}\nexport {};\n`,
  ]);
  return { blocks, readme, files };
}

/**
 * The README diagnostics of each package in `packageDirs`: their ```ts examples type-checked as
 * written, as virtual files inside each package's `src/` (so they import the packages by name, as
 * a user would), under each package's own `tsconfig.json`. Packages whose compiler options are
 * the same share one program, so the workspace sources they all import are parsed and bound once
 * rather than once per package (most of a README check's time).
 */
export function checkReadmes(packageDirs: readonly string[]): Map<string, ReadmeCheck> {
  const groups = new Map<string, { options: ts.CompilerOptions; dirs: string[] }>();
  for (const dir of packageDirs) {
    const options: ts.CompilerOptions = { ...packageOptions(dir), noEmit: true };
    // Where the options were read from is not an option: it differs for every package.
    const { configFilePath: _, ...compared } = options;
    const key = JSON.stringify(compared);
    const group = groups.get(key) ?? { options, dirs: [] };
    group.dirs.push(dir);
    groups.set(key, group);
  }
  const checks = new Map<string, ReadmeCheck>();
  for (const { options, dirs } of groups.values()) {
    const read = dirs.map((dir) => ({ dir, ...readmeFiles(dir) }));
    const files = new Map(
      read.flatMap(({ files }) => files.map(([path = '', text = '']) => [path, text] as const)),
    );
    const diagnostics = files.size === 0 ? [] : typeCheck(files, options);
    for (const { dir, blocks, readme, files: own } of read) {
      const paths = own.map(([path = '']) => `${path}:`);
      // A diagnostic of no file (a bad option) belongs to every package in the program.
      const mine = diagnostics.filter(
        (line) => paths.some((path) => line.startsWith(path)) || /^TS\d+ /.test(line),
      );
      checks.set(dir, { blocks, readme, diagnostics: mine });
    }
  }
  return checks;
}

/** The README diagnostics of one package; see {@link checkReadmes}. */
export function checkReadme(packageDir: string): ReadmeCheck {
  const check = checkReadmes([packageDir]).get(packageDir);
  if (check === undefined) throw new Error(`no README check for ${packageDir}`);
  return check;
}

/** The folder of the package whose test file is `testFileUrl` (test files live in `src/`). */
export function packageDirOf(testFileUrl: string): string {
  return resolve(dirname(fileURLToPath(testFileUrl)), '..');
}

/**
 * Declares the README test of the package whose test file calls it (pass `import.meta.url`): the
 * README opens with a complete example (its first ```ts block comes before any ```sh block and
 * is short). That every example type-checks as written, so none can drift from the API, is
 * checked for every package with a README test at once, in one program, by `readme-types.test.ts`.
 */
export function describeReadme(testFileUrl: string, options: ReadmeCheckOptions = {}): void {
  const packageDir = packageDirOf(testFileUrl);
  const name = packageDir.split(/[\\/]/).at(-1) ?? 'package';
  describe(`${name} README`, () => {
    it('opens with a complete example', () => {
      const { blocks, readme } = readmeFiles(packageDir);
      expect(blocks.length).toBeGreaterThanOrEqual(options.minExamples ?? 1);
      // The complete example comes first: before the install line and any other shell block.
      const shell = readme.indexOf('```sh');
      if (shell !== -1) expect(readme.indexOf('```ts')).toBeLessThan(shell);
      expect(blocks[0]?.split('\n').length).toBeLessThanOrEqual(options.maxOpeningLines ?? 30);
    });
  });
}
