import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from './config.js';
import { runCli, SERVE_HTTP, startCli, type Ran } from './testing/cli-process.js';

// What a newcomer does on a fresh clone: `pnpm install`, `pnpm toolplane …`, `pnpm start`.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));

let dir: string;
let running: ChildProcess | undefined;

function pnpm(args: readonly string[], cwd: string): Promise<Ran> {
  return runCli(args, { cwd, command: ['pnpm'] });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-first-run-'));
  await writeFile(join(dir, 'mine.yaml'), 'store: memory\nmode: tools\n');
  await writeFile(join(dir, 'auth.yaml'), 'auth:\n  token: a-token-of-sixteen\nstore: memory\n');
  await writeFile(join(dir, 'typo.yaml'), 'htpp:\n  port: 9000\n');
});

afterEach(() => {
  // The whole process group: pnpm, the CLI and the servers it started.
  if (running?.pid !== undefined && running.exitCode === null && running.signalCode === null) {
    process.kill(-running.pid, 'SIGKILL');
  }
  running = undefined;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('pnpm toolplane', { timeout: 60_000 }, () => {
  it('runs the CLI with a config path relative to where the user ran pnpm', async () => {
    const ran = await pnpm(
      ['--silent', '--dir', root, 'toolplane', '--config', 'mine.yaml', 'tools', 'list', '--json'],
      dir,
    );
    // A build older than an edit runs the source instead, saying so in one line: not an error.
    expect(ran.stderr.replace(/^toolplane: .* running the source through tsx .*\n/, '')).toBe('');
    expect(ran.code).toBe(0);
    const ids = (JSON.parse(ran.stdout) as { tools: { id: string }[] }).tools.map((t) => t.id);
    expect(ids).toContain('builtin:time_now');
  });

  it('exits 2 for an unknown config section or a misspelled key, naming it', async () => {
    const [auth, typo] = await Promise.all([
      pnpm(
        ['--silent', '--dir', root, 'toolplane', '--config', 'auth.yaml', 'serve', '--http'],
        dir,
      ),
      pnpm(['--silent', '--dir', root, 'toolplane', '--config', 'typo.yaml', 'tools', 'list'], dir),
    ]);
    expect(auth.code).toBe(2);
    expect(auth.stderr).toMatch(/auth\.yaml: auth: unknown key "token"/);
    expect(auth.stderr).not.toMatch(/listening/);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/typo\.yaml: unknown key "htpp"; did you mean "http"\?/);
  });
});

describe('the READMEs', () => {
  it('show config files that toolplane accepts as they are', async () => {
    const blocks: string[] = [];
    for (const readme of [join(root, 'README.md'), join(packageDir, 'README.md')]) {
      const text = await readFile(readme, 'utf8');
      for (const match of text.matchAll(/```yaml\n([\s\S]*?)```/g)) blocks.push(match[1]!);
    }
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    // Next to the example gateway, where the `module` packages they name are installed.
    const file = join(root, 'examples', 'gateway', 'readme.config.yaml');
    for (const block of blocks) {
      expect(
        parseConfig(block, {
          file,
          env: {
            GITHUB_TOKEN: 'ghp-example',
            REPORTS_CLIENT_SECRET: 'example',
            BILLING_KEY_PEM: 'example',
          },
        }).connectors.length,
      ).toBeGreaterThan(0);
    }
  });
});

describe('a fresh install', () => {
  it('has every bin of the CLI in place before any build', async () => {
    const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      files: string[];
    };
    for (const file of Object.values(manifest.bin)) {
      const path = join(packageDir, file);
      expect(existsSync(path)).toBe(true);
      expect(await readFile(path, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
      expect(manifest.files).toContain(file.replace(/^\.\//, ''));
    }
  });

  it('decides for every installed package with an install script whether it runs', async () => {
    const workspace = parse(await readFile(join(root, 'pnpm-workspace.yaml'), 'utf8')) as {
      onlyBuiltDependencies?: string[];
      ignoredBuiltDependencies?: string[];
    };
    const decided = [
      ...(workspace.onlyBuiltDependencies ?? []),
      ...(workspace.ignoredBuiltDependencies ?? []),
    ];
    // Every installed package's manifest, read a hundred at a time: one by one, a loaded host
    // took over 30 s; all ~2,700 at once could pass a low open-file limit. Only a missing file
    // or folder is passed over; any other error fails the test rather than hiding a package.
    const absent =
      <T>(fallback: T) =>
      (error: NodeJS.ErrnoException): T => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return fallback;
        throw error;
      };
    const folders = async (dir: string): Promise<string[]> =>
      (await readdir(dir).catch(absent<string[]>([]))).map((name) => join(dir, name));
    const packages = (
      await Promise.all(
        (await folders(join(root, 'node_modules', '.pnpm'))).map(async (entry) => {
          const names = await folders(join(entry, 'node_modules'));
          const scoped = await Promise.all(
            names.map(async (name) => (basename(name).startsWith('@') ? folders(name) : [name])),
          );
          return scoped.flat();
        }),
      )
    ).flat();
    const withScripts = new Set<string>();
    for (let at = 0; at < packages.length; at += 100) {
      await Promise.all(
        packages.slice(at, at + 100).map(async (folder) => {
          const manifest = join(folder, 'package.json');
          const text = await readFile(manifest, 'utf8').catch(absent(undefined));
          if (text === undefined) return;
          const { scripts = {} } = JSON.parse(text) as { scripts?: Record<string, string> };
          const scope = basename(dirname(folder));
          const name = scope.startsWith('@') ? `${scope}/${basename(folder)}` : basename(folder);
          if (scripts.preinstall ?? scripts.install ?? scripts.postinstall) withScripts.add(name);
        }),
      );
    }
    expect(withScripts.size).toBeGreaterThan(0);
    expect([...withScripts].filter((name) => !decided.includes(name))).toEqual([]);
  });
});

describe('Ctrl-C under pnpm', { timeout: 60_000 }, () => {
  it.each([
    ['pnpm start', ['start', '--port', '0']],
    ['pnpm toolplane serve', ['--dir', root, 'toolplane', ...SERVE_HTTP, '--config', 'mine.yaml']],
  ])('stops %s with exit code 0 and nothing alarming from pnpm', async (_name, args) => {
    // Ctrl-C in a terminal signals the whole foreground process group: pnpm, the CLI, servers.
    const child = startCli(args, {
      cwd: args[0] === 'start' ? root : dir,
      command: ['pnpm'],
      detached: true,
    });
    running = child;
    let output = '';
    const listening = new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        if (/listening on http:\/\/\S+\/mcp/.test(output)) resolve();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', () => {
        reject(new Error(`pnpm start exited before listening:\n${output}`));
      });
    });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('close', (code, signal) => {
        resolve({ code, signal });
      });
    });
    await listening;
    process.kill(-child.pid!, 'SIGINT');
    expect(await ended).toEqual({ code: 0, signal: null });
    expect(output).toMatch(/stopped/);
    expect(output).not.toMatch(/ELIFECYCLE|ERR_PNPM|SIGINT|Exit status/);
  });
});
