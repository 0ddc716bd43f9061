import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The README's examples are type-checked here, as they are written, so they cannot drift from the
// API or from the AI SDK's.

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The ```ts blocks of a markdown file, in order. */
function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

function packageOptions(): ts.CompilerOptions {
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
  if (parsed === undefined) throw new Error('no tsconfig.json');
  return parsed.options;
}

/** Type-checks `files` (path → text, paths that need not exist) and describes their diagnostics. */
function check(files: ReadonlyMap<string, string>, options: ts.CompilerOptions): string[] {
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

describe('openai README', () => {
  it('opens with a complete example, and every example type-checks as written', () => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    const blocks = tsBlocks(readme);
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    // The first code block after the title is the complete example.
    expect(readme.indexOf('```ts')).toBeLessThan(readme.indexOf('```sh'));
    expect(blocks[0]?.split('\n').length).toBeLessThanOrEqual(30);
    // Virtual files inside src/, so they import the packages by name as a user would.
    const files = new Map(
      blocks.map((block, i) => [
        join(packageDir, 'src', '__readme__', `block-${String(i + 1)}.ts`),
        `${block}\nexport {};\n`,
      ]),
    );
    expect(check(files, { ...packageOptions(), noEmit: true })).toEqual([]);
  }, 120_000);
});
