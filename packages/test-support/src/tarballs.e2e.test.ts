import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { typeCheck } from '@toolplane/readme-check';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXAMPLE_RUNS,
  initialize,
  startExampleServices,
  type ExampleServices,
} from './example-runs.js';
import { lendPrebuilds } from './native-prebuilds.js';
import {
  firstBlock,
  firstExample,
  importedPackages,
  installLine,
  onAFreePort,
  runInApp,
  shellCommands,
  type Published,
} from './tarball-app.js';

// What a stranger gets from npm: every public package packed as `pnpm pack` packs it for
// publishing, installed with npm into a fresh project, and each README's first example taken
// as written: its imports on the README's install line, type-checked under `nodenext` and
// `bundler`, and run, a paid model API's by its documented base-URL variable pointed at a local
// mock model, a database or an issuer by the variable the README names.

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const packagesDir = join(root, 'packages');

let work: string | undefined;
let app: string;
const published: Published[] = [];
const diagnostics = new Map<string, string[]>();
let services: ExampleServices | undefined;
let stopServices: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ services, stop: stopServices } = await startExampleServices());
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
  // One pnpm packs them all, two at a time: a pnpm started per package cost a second or more of
  // CPU each before it packed anything.
  const filters = published.flatMap(({ folder }) => ['--filter', `./packages/${folder}`]);
  const { stdout: report } = await run(
    'pnpm',
    ['--recursive', ...filters, 'pack', '--pack-destination', tarballs, '--json'],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  const packed = (JSON.parse(report) as { filename: string }[]).map(({ filename }) =>
    isAbsolute(filename) ? filename : join(tarballs, filename),
  );
  expect(packed).toHaveLength(published.length);
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
      // codemode's example runs this one through `npx -y`, as gateway's runs server-everything.
      '@modelcontextprotocol/server-memory@2026.8.31',
      // The v1 SDK most of the ecosystem still hands out, for the v1 Client check below.
      '@modelcontextprotocol/sdk@^1.32.2',
      'typescript@~6.0.3',
      '@types/node@^20.19.0',
    ],
    {
      cwd: app,
      env: { ...process.env, ...(await lendPrebuilds(packagesDir, join(work, 'prebuilds'))) },
      maxBuffer: 64 * 1024 * 1024,
    },
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
    // What runs listens on a free port; what is type-checked is the README's text.
    const emitted = ts.transpileModule(onAFreePort(text), {
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
}, 1_200_000);

afterAll(async () => {
  await stopServices?.();
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

    it('ships its LICENSE and names its repository, homepage and bug tracker', async () => {
      const installed = join(app, 'node_modules', item().name);
      await access(join(installed, 'LICENSE'));
      const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
        license?: string;
        repository?: { url?: string; directory?: string };
        homepage?: string;
        bugs?: { url?: string };
      };
      expect(manifest).toMatchObject({
        license: 'MIT',
        repository: {
          url: expect.stringMatching(/^git\+https:\/\//),
          directory: `packages/${folder}`,
        },
        homepage: expect.stringMatching(new RegExp(`^https://.*/packages/${folder}#readme$`)),
        bugs: { url: expect.stringMatching(/^https:\/\//) },
      });
    });

    it('runs its first example as written', async () => {
      const spec = EXAMPLE_RUNS[folder];
      if (spec === undefined) throw new Error(`no run of ${folder}'s first example is described`);
      const live = services;
      if (live === undefined) throw new Error('the services the examples use did not start');
      const { interruptAfter, whileServing } = spec;
      const { code, output } = await runInApp(process.execPath, [`${folder}.mjs`], {
        cwd: app,
        env: spec.env?.(live) ?? {},
        ...(interruptAfter === undefined ? {} : { interruptAfter }),
        ...(whileServing === undefined
          ? {}
          : { whileServing: (text) => whileServing(interruptAfter?.exec(text)?.[1] ?? '', live) }),
      });
      expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
      if (spec.prints !== undefined) expect(output).toMatch(spec.prints);
    }, 150_000);
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

  it('runs the commands the CLI README opens with, on the config it shows', async () => {
    const cli = published.find((p) => p.folder === 'cli');
    const commands = shellCommands(firstBlock(cli?.readme ?? '', 'sh') ?? '');
    const config = firstBlock(cli?.readme ?? '', 'yaml');
    expect(commands.map((words) => words.slice(0, 2).join(' '))).toEqual([
      'toolplane serve',
      'npx @toolplane/cli',
    ]);
    if (config === undefined) throw new Error('the CLI README shows no config');
    await writeFile(join(app, 'my.config.yaml'), onAFreePort(config));
    await mkdir(join(app, 'prompts')); // the folder of markdown prompts it names
    // `npm i -g` puts the bin on PATH; the app's local install stands in for it.
    const env = {
      PATH: `${join(app, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
    };
    for (const [command = '', ...args] of commands) {
      const serves = args.includes('serve');
      const endpoint = /listening on (http:\/\/\S+)/;
      const { code, output } = await runInApp(command, args, {
        cwd: app,
        env,
        ...(serves
          ? {
              interruptAfter: endpoint,
              whileServing: async (text: string) => {
                expect((await initialize(endpoint.exec(text)?.[1] ?? '')).status).toBe(200);
              },
            }
          : {}),
      });
      expect({
        command: `${command} ${args.join(' ')}`,
        code,
        output: code === 0 ? '' : output,
      }).toEqual({
        command: `${command} ${args.join(' ')}`,
        code: 0,
        output: '',
      });
      if (!serves) expect(output).toContain('everything:get-sum');
    }
  }, 300_000);

  it('tells a v1 SDK Client handed to createMcpExecutor to be a v2 one, in one line', async () => {
    await writeFile(
      join(app, 'v1-client.mjs'),
      [
        "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
        "import { createMcpExecutor } from '@toolplane/toolrun';",
        "const v1 = new Client({ name: 'v1', version: '1.0.0' });",
        'const executor = createMcpExecutor({ clients: { old: v1 } });',
        "await executor.callTool('old', 'echo', {}).then(",
        "  () => console.log('accepted'),",
        '  (error) => console.log(JSON.stringify({ code: error.code, message: error.message })),',
        ');',
      ].join('\n'),
    );
    const { code, output } = await runInApp(process.execPath, ['v1-client.mjs'], { cwd: app });
    expect(code).toBe(0);
    const refusal = JSON.parse(output) as { code: string; message: string };
    expect(refusal.code).toBe('invalid_argument');
    expect(refusal.message).not.toContain('\n');
    expect(refusal.message).toContain('@modelcontextprotocol/client');
  });

  it('loads the ./testing helpers with no vitest installed', async () => {
    // A stranger's project that tests with another runner (this app has none).
    await expect(access(join(app, 'node_modules', 'vitest'))).rejects.toThrow();
    const { code, output } = await runInApp(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "await import('@toolplane/toolkit/testing'); await import('@toolplane/toolmodel/testing');",
      ],
      { cwd: app },
    );
    expect({ code, output }).toEqual({ code: 0, output: '' });
  });
});
