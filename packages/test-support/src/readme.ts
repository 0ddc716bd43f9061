import { readFileSync } from 'node:fs';
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
  return [...files.keys()]
    .flatMap((path) => {
      const source = program.getSourceFile(path);
      if (source === undefined) throw new Error(`${path} was not compiled`);
      return [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ];
    })
    .map((d) => {
      const line =
        d.file === undefined || d.start === undefined
          ? ''
          : `${d.file.fileName}:${String(d.file.getLineAndCharacterOfPosition(d.start).line + 1)}: `;
      return `${line}TS${String(d.code)} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}

/**
 * The README's diagnostics: its ```ts examples type-checked as written, as virtual files inside
 * the package's `src/` (so they import the packages by name, as a user would), under the
 * package's own `tsconfig.json`.
 */
export function checkReadme(packageDir: string): {
  blocks: string[];
  readme: string;
  diagnostics: string[];
} {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  const blocks = tsBlocks(readme);
  const files = new Map(
    blocks.map((block, i) => [
      join(packageDir, 'src', '__readme__', `block-${String(i + 1)}.ts`),
      `${block}\nexport {};\n`,
    ]),
  );
  const diagnostics =
    files.size === 0 ? [] : typeCheck(files, { ...packageOptions(packageDir), noEmit: true });
  return { blocks, readme, diagnostics };
}

/**
 * Declares the README test of the package whose test file calls it (pass `import.meta.url`): the
 * README opens with a complete example (its first ```ts block comes before any ```sh block and
 * is short), and every example type-checks as written, so none can drift from the API.
 */
export function describeReadme(testFileUrl: string, options: ReadmeCheckOptions = {}): void {
  // Test files live in <package>/src/.
  const packageDir = resolve(dirname(fileURLToPath(testFileUrl)), '..');
  const name = packageDir.split(/[\\/]/).at(-1) ?? 'package';
  describe(`${name} README`, () => {
    it('opens with a complete example, and every example type-checks as written', () => {
      const { blocks, readme, diagnostics } = checkReadme(packageDir);
      expect(blocks.length).toBeGreaterThanOrEqual(options.minExamples ?? 1);
      // The complete example comes first: before the install line and any other shell block.
      const shell = readme.indexOf('```sh');
      if (shell !== -1) expect(readme.indexOf('```ts')).toBeLessThan(shell);
      expect(blocks[0]?.split('\n').length).toBeLessThanOrEqual(options.maxOpeningLines ?? 30);
      expect(diagnostics).toEqual([]);
    }, 120_000);
  });
}
