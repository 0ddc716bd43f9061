import { spawn } from 'node:child_process';
import { builtinModules } from 'node:module';
import { tsBlocks } from '@toolplane/readme-check';
import ts from 'typescript';

// What the tarball test reads from a README and how it runs an example in the stranger's app.

/** A public package as packed: its folder, its name and its README. */
export interface Published {
  readonly folder: string;
  readonly name: string;
  readonly readme: string;
}

/** The packages named by the README's install line (`npm install …`, `pnpm add …`). */
export function installLine(readme: string): string[] | undefined {
  for (const [, rest = ''] of readme.matchAll(/^(?:npm (?:install|i)|pnpm add|yarn add) (.+)$/gm)) {
    // The command ends where the shell's next one or a comment starts.
    const words = (rest.split(/&&|\|\||[;|#]/)[0] ?? '').split(/\s+/).filter((w) => w !== '');
    // A global install (pnpm itself, say) is not what a project installs.
    if (words.includes('-g') || words.includes('--global')) continue;
    return words.filter((word) => !word.startsWith('-'));
  }
  return undefined;
}

/** The packages a module imports (`@scope/name` or `name`), leaving Node's own out. */
export function importedPackages(code: string): string[] {
  const source = ts.createSourceFile('example.ts', code, ts.ScriptTarget.Latest);
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier))
      continue;
    const specifier = statement.moduleSpecifier.text;
    if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier));
  }
  return [...names];
}

/** The README's first ```ts block. */
export function firstExample(item: Published): string {
  const block = tsBlocks(item.readme)[0];
  if (block === undefined) throw new Error(`${item.name}: the README has no \`\`\`ts example`);
  return block;
}

/** The README's first block in `lang` (```sh, ```yaml), or undefined. */
export function firstBlock(markdown: string, lang: string): string | undefined {
  return new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(markdown)?.[1];
}

/**
 * The commands of a shell block, one per line, comments and blank lines left out. A global
 * install (`npm i -g`) is left out too: the app has the packages installed, and its
 * `node_modules/.bin` stands in for the global bin folder.
 */
export function shellCommands(block: string): string[][] {
  return block
    .split('\n')
    .map((line) => (line.split(' #')[0] ?? '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split(/\s+/))
    .filter(
      (words) => !(words[0] === 'npm' && (words.includes('-g') || words.includes('--global'))),
    );
}

/** The fixed port the README examples that serve HTTP listen on (`port: 8808`). */
const README_PORT = /\bport: 8808\b/g;

/**
 * The example or config as the test runs it: the README's fixed port 8808 becomes port 0, any
 * free one, so a run never fails on a port something else on the machine holds, and two runs can
 * go side by side. The README keeps its port: a stranger wants one to type into a client. The
 * examples print the URL they listen on, which is what the test reads.
 */
export function onAFreePort(text: string): string {
  return text.replace(README_PORT, 'port: 0');
}

/** Options of {@link runInApp}. */
export interface RunOptions {
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
  /** The command serves until interrupted: SIGINT once its output matches this. */
  readonly interruptAfter?: RegExp;
  /** Runs once `interruptAfter` matched, before the interrupt, with the output so far. */
  readonly whileServing?: (output: string) => Promise<void>;
  /** Killed (and the run failed) after this long; default 120 s. */
  readonly ms?: number;
}

/**
 * Runs a command in the app (an example's JavaScript as tsc would emit it, with plain Node; or a
 * README's shell command) and resolves with its exit code and its stdout and stderr together.
 * Not tsx: its signal relay ends a process whose own `process.once('SIGINT')` handler has just
 * run. A `whileServing` failure rejects, after the interrupt has ended the process.
 */
export function runInApp(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<{ code: number | null; output: string }> {
  const ms = options.ms ?? 120_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let interrupted = false;
    let failure: Error | undefined;
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (interrupted || options.interruptAfter?.test(output) !== true) return;
      interrupted = true;
      const check = options.whileServing?.(output) ?? Promise.resolve();
      void check
        .catch((error: unknown) => {
          failure = error instanceof Error ? error : new Error(JSON.stringify(error));
        })
        .finally(() => child.kill('SIGINT'));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `${command} ${args.join(' ')} still running after ${String(ms)} ms:\n${output.slice(-4000)}`,
        ),
      );
    }, ms);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (failure === undefined) resolve({ code, output });
      else reject(failure);
    });
  });
}
