import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsBlocks, typeCheck } from './readme.js';

// What a stranger gets from npm: every public package packed as `pnpm pack` packs it for
// publishing, installed with npm into a fresh project, and each README's first example taken
// as written: its imports on the README's install line, type-checked under `nodenext` and
// `bundler`, and run where it needs no paid model API and no outside service.

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const packagesDir = join(root, 'packages');

/** How a README's first example ends when it serves until interrupted. */
const RUNS: Readonly<Record<string, { readonly interruptAfter?: RegExp }>> = {
  'adapter-kit': {},
  toolmodel: {},
  toolindex: {},
  'validator-ajv': {},
  toolrun: {},
  toolkit: {},
  'store-sqlite': {},
  builtins: {},
  gateway: { interruptAfter: /MCP endpoint: http:\/\/127\.0\.0\.1:\d+/ },
};

interface Published {
  readonly folder: string;
  readonly name: string;
  readonly readme: string;
}

let work: string | undefined;
let app: string;
const published: Published[] = [];
const diagnostics = new Map<string, string[]>();

/** The packages named by the README's install line (`npm install …`, `pnpm add …`). */
function installLine(readme: string): string[] | undefined {
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
function importedPackages(code: string): string[] {
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

function firstExample(item: Published): string {
  const block = tsBlocks(item.readme)[0];
  if (block === undefined) throw new Error(`${item.name}: the README has no \`\`\`ts example`);
  return block;
}

/**
 * Runs the example's JavaScript (as tsc would emit it) with plain Node in the app; kills it
 * after `ms`, or interrupts it on cue. Not tsx: its signal relay ends a process whose own
 * `process.once('SIGINT')` handler has just run.
 */
function runExample(
  file: string,
  interruptAfter: RegExp | undefined,
  ms = 120_000,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], {
      cwd: app,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let interrupted = false;
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (!interrupted && interruptAfter?.test(output) === true) {
        interrupted = true;
        child.kill('SIGINT');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} still running after ${String(ms)} ms:\n${output.slice(-4000)}`));
    }, ms);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'toolplane-tarballs-'));
  app = join(work, 'app');
  const tarballs = join(work, 'tarballs');
  await mkdir(app);
  await mkdir(tarballs);
  for (const folder of (await readdir(packagesDir)).sort()) {
    const manifest = JSON.parse(
      await readFile(join(packagesDir, folder, 'package.json'), 'utf8'),
    ) as { name: string; private?: boolean };
    if (manifest.private === true) continue;
    const readme = await readFile(join(packagesDir, folder, 'README.md'), 'utf8');
    published.push({ folder, name: manifest.name, readme });
  }
  // Packing takes the build: make sure it is the source's (turbo's cache makes this cheap).
  await run('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root });
  const packed: string[] = [];
  for (const { folder } of published) {
    const { stdout } = await run('pnpm', ['pack', '--pack-destination', tarballs], {
      cwd: join(packagesDir, folder),
    });
    const file = stdout.trim().split('\n').at(-1) ?? '';
    packed.push(file.startsWith('/') ? file : join(tarballs, file));
  }
  // What the install lines name besides our packages, and what runs and checks the examples.
  const ours = new Set(published.map((p) => p.name));
  const theirs = new Set(
    published.flatMap((p) => installLine(p.readme) ?? []).filter((name) => !ours.has(name)),
  );
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({ name: 'a-stranger', private: true, type: 'module' }),
  );
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...packed,
      ...theirs,
      '@modelcontextprotocol/server-everything@2026.8.31',
      'typescript@~6.0.3',
      '@types/node@^20.19.0',
    ],
    { cwd: app, maxBuffer: 64 * 1024 * 1024 },
  );
  // Every first example as a file of the app, type-checked once per resolution mode.
  // The CLI's README opens with shell commands; its bin is checked on its own below.
  const files = new Map(
    published
      .filter((item) => item.folder !== 'cli')
      .map((item) => [join(app, `${item.folder}.ts`), `${firstExample(item)}\nexport {};\n`]),
  );
  for (const [path, text] of files) {
    await writeFile(path, text);
    const emitted = ts.transpileModule(text, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await writeFile(path.replace(/\.ts$/, '.mjs'), emitted.outputText);
  }
  const common: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(app, 'node_modules', '@types')],
  };
  const modes: Record<string, ts.CompilerOptions> = {
    nodenext: {
      ...common,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    },
    bundler: {
      ...common,
      module: ts.ModuleKind.Preserve,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
    },
  };
  for (const [mode, options] of Object.entries(modes)) {
    for (const line of typeCheck(files, options)) {
      const file = [...files.keys()].find((path) => line.startsWith(path)) ?? '';
      const list = diagnostics.get(`${mode} ${file}`) ?? [];
      list.push(line.slice(app.length + 1));
      diagnostics.set(`${mode} ${file}`, list);
    }
  }
}, 900_000);

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('the packed packages, installed with npm', () => {
  // Named after the folders so the list exists before beforeAll has read the manifests.
  const folders = [
    'adapter-kit',
    'ai-sdk',
    'anthropic',
    'builtins',
    'cli',
    'codemode',
    'dashboard',
    'gateway',
    'gemini',
    'langchain',
    'oauth',
    'openai',
    'store-postgres',
    'store-sqlite',
    'toolindex',
    'toolkit',
    'toolmodel',
    'toolrun',
    'validator-ajv',
  ];

  it('are every public package', () => {
    expect(published.map((p) => p.folder)).toEqual(folders);
  });

  describe.each(folders.filter((folder) => folder !== 'cli'))('%s', (folder) => {
    const item = (): Published => {
      const found = published.find((p) => p.folder === folder);
      if (found === undefined) throw new Error(`${folder} was not packed`);
      return found;
    };

    it('names on its install line every package its first example imports', () => {
      const line = installLine(item().readme) ?? [];
      expect(importedPackages(firstExample(item())).filter((name) => !line.includes(name))).toEqual(
        [],
      );
    });

    it('has a first example that type-checks under nodenext and under bundler', () => {
      const file = join(app, `${folder}.ts`);
      expect(diagnostics.get(`nodenext ${file}`) ?? []).toEqual([]);
      expect(diagnostics.get(`bundler ${file}`) ?? []).toEqual([]);
    });

    const runs = RUNS[folder];
    it.runIf(runs !== undefined)(
      'runs its first example as written',
      async () => {
        const { code, output } = await runExample(`${folder}.mjs`, runs?.interruptAfter);
        expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
      },
      150_000,
    );
  });

  it('gives a working toolplane command', async () => {
    const bin = join(app, 'node_modules', '.bin', 'toolplane');
    const { stdout } = await run(bin, ['--version'], { cwd: app });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    await writeFile(join(app, 'toolplane.config.yaml'), 'store: memory\n');
    const listed = await run(bin, ['tools', 'list', '--json'], { cwd: app });
    const ids = (JSON.parse(listed.stdout) as { tools: { id: string }[] }).tools.map((t) => t.id);
    expect(ids).toContain('builtin:time_now');
  }, 60_000);
});
