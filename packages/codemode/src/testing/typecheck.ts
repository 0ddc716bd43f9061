import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  types: [],
  skipLibCheck: true,
};

// The library's files (lib.es2023.d.ts and the ~60 it references) parsed once per test file,
// not once per check: parsing them was most of each check's CPU. A parsed file is immutable, so
// programs may share it.
const host = ts.createCompilerHost(OPTIONS);
const libraries = new Map<string, ts.SourceFile | undefined>();
const read = host.getSourceFile.bind(host);
host.getSourceFile = (fileName, language, onError, fresh) => {
  if (!fileName.startsWith(host.getDefaultLibLocation?.() ?? '\0')) {
    return read(fileName, language, onError, fresh);
  }
  if (!libraries.has(fileName)) libraries.set(fileName, read(fileName, language, onError, fresh));
  return libraries.get(fileName);
};

/**
 * Type-checks `source` as one script with `tsc --strict` (ES2023 library only, no other types, so
 * nothing of Node is in scope) and answers its diagnostics as text, one per line.
 */
export function typecheck(source: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'codemode-decl-'));
  try {
    const file = join(dir, 'api.ts');
    writeFileSync(file, source);
    const program = ts.createProgram([file], OPTIONS, host);
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      if (diagnostic.file === undefined || diagnostic.start === undefined) return text;
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      const lines = source.split('\n');
      return `line ${String(line + 1)}: ${text}\n    ${lines[line] ?? ''}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
