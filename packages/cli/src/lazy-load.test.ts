import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type Ran } from './testing/cli-process.js';
import { requiredIn, resolvedIn, writeModuleLog, type ModuleLog } from './testing/module-log.js';
import { stdioServerScript } from './testing/stdio-script.js';

// What a start of the CLI loads is a property of the process: each run here is a child whose
// module resolutions are written to a log file by a resolve hook, one `resolved URL` line each. The
// child runs the source module by module under tsx, never the test run's bundle, in which every
// workspace package is inlined and so never resolved.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const source = fileURLToPath(new URL('./bin.ts', import.meta.url));

/** Modules that only a command's work needs, never a start. */
const HEAVY = {
  toolkit: /\/toolkit\/(src|dist)\//,
  gateway: /\/gateway\/(src|dist)\//,
  oauth: /\/oauth\/(src|dist)\/|\/jose\//,
  sqlite: /\/store-sqlite\/|\/better-sqlite3\//,
  postgres: /\/store-postgres\/|\/pg\//,
  ajv: /\/validator-ajv\/|\/ajv\//,
};

let dir: string;
let log: ModuleLog;

let runs = 0;

/** Runs the CLI's source with `args`, its module log's hooks and `preload` first. */
async function loaded(
  args: readonly string[],
  preload: readonly string[] = [],
): Promise<{ ran: Ran; lines: string[]; urls: string[] }> {
  runs += 1;
  const file = join(dir, `run-${String(runs)}.log`);
  const ran = await runCli(args, {
    cwd: dir,
    env: log.env(file),
    command: [
      process.execPath,
      ...preload.flatMap((url) => ['--import', url]),
      '--import',
      log.hooks,
      '--conditions=@toolplane/source',
      '--import',
      tsx,
      source,
    ],
  });
  const lines = await log.read(file);
  return { ran, lines, urls: resolvedIn(lines) };
}

function heavyIn(urls: readonly string[]): string[] {
  return Object.entries(HEAVY)
    .filter(([, pattern]) => urls.some((url) => pattern.test(url)))
    .map(([name]) => name);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-lazy-'));
  log = await writeModuleLog(dir);
  await writeFile(join(dir, 'memory.yaml'), 'store: memory\n');
  await writeFile(join(dir, 'memory.json'), '{ "store": "memory" }\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('what a start loads', { timeout: 60_000 }, () => {
  it('loads no toolkit, gateway, store, ajv or OAuth for --version and --help', async () => {
    const [version, help] = await Promise.all([loaded(['--version']), loaded(['--help'])]);
    expect(version.ran.code, version.ran.stderr).toBe(0);
    expect(help.ran.code, help.ran.stderr).toBe(0);
    // The hook saw the CLI start, so an empty list below means something.
    expect(version.urls.some((url) => url.endsWith('/cli/src/cli.ts'))).toBe(true);
    expect(heavyIn(version.urls)).toEqual([]);
    expect(heavyIn(help.urls)).toEqual([]);
  });

  it('loads no native module, pg, ajv or HTTP client for tools list on a memory store', async () => {
    const { ran, urls } = await loaded([
      '--config',
      'memory.yaml',
      'tools',
      'list',
      '-n',
      'builtin',
      '--json',
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    // It runs no tool: the compiled validator is not needed either.
    expect(heavyIn(urls)).toEqual(['toolkit']);
    // Nor what only some tools, transports and policies need: date-fns' index (its ~860
    // modules; the time tools import one module per function), an HTTP client and the HTTP
    // transport for HTTP upstreams, the MIME sniffing and text decoding of resources built from
    // bytes, the glob compiler of approval patterns.
    const needless = [
      /\/date-fns\/index\.js$/,
      /\/undici\//,
      /\/http-client-transport\.[jt]s$/,
      /\/file-type\//,
      /\/iconv-lite\//,
      /\/picomatch\//,
    ];
    expect(urls.filter((url) => needless.some((pattern) => pattern.test(url)))).toEqual([]);
    expect(urls.some((url) => url.includes('/date-fns/'))).toBe(true);
  });

  it('loads the YAML parser for a YAML config only', async () => {
    const yaml = /[\\/]node_modules[\\/]yaml[\\/]/;
    const runs = await Promise.all(
      ['memory.json', 'memory.yaml'].map(async (config) => {
        const { ran, lines, urls } = await loaded(
          ['--config', config, 'tools', 'list', '-n', 'builtin'],
          [log.required],
        );
        expect(ran.code, ran.stderr).toBe(0);
        const required = requiredIn(lines);
        // The log saw the process's CommonJS modules, so a list without yaml means something.
        expect(required.length).toBeGreaterThan(0);
        return [...urls, ...required].some((path) => yaml.test(path));
      }),
    );
    expect(runs).toEqual([false, true]);
  });

  it('starts the stdio servers of tools list before it loads the toolkit or the SDK', async () => {
    const marker = 'early-start-marker';
    await writeFile(
      join(dir, 'early.json'),
      JSON.stringify({
        mcpServers: {
          early: {
            command: process.execPath,
            args: [
              '-e',
              stdioServerScript({ name: 'early', tools: ['greet'], onCall: '' }),
              marker,
            ],
          },
        },
        store: 'memory',
        builtins: false,
      }),
    );
    const { ran, lines, urls } = await loaded(
      ['--config', 'early.json', 'tools', 'list'],
      [log.spawns],
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('early:greet');
    const spawnedAt = lines.findIndex(
      (line) => line.startsWith('spawned ') && line.includes(marker),
    );
    // The toolkit's index (its spawn module alone is light) and the MCP SDK.
    const heavyAt = lines.findIndex(
      (line) =>
        line.startsWith('resolved ') &&
        (/\/toolkit\/src\/index\.ts$/.test(line) || line.includes('/@modelcontextprotocol/')),
    );
    expect(spawnedAt).toBeGreaterThan(-1);
    expect(heavyAt).toBeGreaterThan(-1);
    expect(spawnedAt).toBeLessThan(heavyAt);
    expect(urls.some((url) => url.includes('/toolkit/src/connectors/spawn/'))).toBe(true);
  });
});
