// A server started with `npx -y` on a cold npx cache (a temporary npm_config_cache), from a local
// tarball so the test needs no network: the install runs a postinstall step that waits for the
// test's gate file, standing in for a slow download, so "slow" lasts exactly as long as the
// test wants. Then a cache whose install was cut short, and a start bound that runs out.
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { bundledEntry, isAlive, repoRoot } from '@toolplane/fixtures';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  binCommand,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
  waitForStderr,
} from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

const run = promisify(execFile);
const tempDir = useTempDir('cold-npx');
const children: ChildProcess[] = [];
const fixtureBundle = bundledEntry(join(repoRoot, 'packages/fixtures/src/serve-fixture.ts'));
const BIN = 'toolplane-npx-fixture';
let tarball: string;

/** A config whose `npxfix` server is `npx -y` of the tarball, with its own npm cache. */
async function writeConfig(name: string, cache: string, extra: object = {}): Promise<string> {
  const dir = tempDir();
  const file = join(dir, name);
  await writeFile(
    file,
    JSON.stringify({
      mcpServers: {
        npxfix: {
          command: 'npx',
          args: ['-y', '--package', tarball, BIN, 'stdio'],
          env: {
            npm_config_cache: cache,
            npm_config_update_notifier: 'false',
            npm_config_audit: 'false',
            npm_config_fund: 'false',
            FIXTURE_ENTRY: pathToFileURL(fixtureBundle ?? '').href,
            GATE: join(dir, `${name}.gate`),
            PID_FILE: join(dir, `${name}.pid`),
          },
          ...extra,
        },
      },
      store: 'memory',
    }),
  );
  return file;
}

beforeAll(async () => {
  const dir = tempDir();
  const pkg = join(dir, 'pkg');
  await mkdir(pkg);
  await writeFile(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: BIN,
      version: '1.0.0',
      type: 'module',
      bin: { [BIN]: 'server.mjs' },
      scripts: { postinstall: 'node wait-gate.mjs' },
    }),
  );
  // The install's slow part: it lasts until the test creates the gate file.
  await writeFile(
    join(pkg, 'wait-gate.mjs'),
    [
      "import { existsSync, writeFileSync } from 'node:fs';",
      'writeFileSync(process.env.PID_FILE, String(process.pid));',
      'const timer = setInterval(() => {',
      '  if (existsSync(process.env.GATE)) clearInterval(timer);',
      '}, 20);',
      '',
    ].join('\n'),
  );
  await writeFile(join(pkg, 'server.mjs'), "#!/usr/bin/env node\nimport './lib.mjs';\n");
  await writeFile(join(pkg, 'lib.mjs'), 'await import(process.env.FIXTURE_ENTRY);\n');
  const { stdout } = await run('npm', ['pack', '--pack-destination', dir], { cwd: pkg });
  tarball = join(dir, stdout.trim().split('\n').at(-1) ?? '');
}, 60_000);

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stop(child, 'SIGTERM')));
});

/**
 * Whether `pid` has ended: gone, or a zombie (its parent, npx, was ended with it, and a container's
 * first process may be slow to reap what is handed to it).
 */
async function ended(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return true;
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => '');
  return stat === '' || / Z /.test(stat.slice(stat.lastIndexOf(')')));
}

async function toolNames(url: URL): Promise<string[]> {
  const client = new Client({ name: 'cold-npx-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe.skipIf(fixtureBundle === undefined)('a cold npx cache', { timeout: 120_000 }, () => {
  it('says npx is downloading, waits for it, then serves its tools; a cut install is named with the fix', async () => {
    const dir = tempDir();
    const cache = join(dir, 'npm-cache-a');
    const config = await writeConfig('cold.json', cache);
    const child = startCli([...SERVE_HTTP, '--config', config], {
      command: binCommand,
      cwd: dir,
      stdin: 'pipe',
    });
    children.push(child);
    await waitForStderr(child, /starting npxfix \(npx is downloading…\)/, 60_000);
    const listening = listeningUrl(child, 90_000);
    await writeFile(join(dir, 'cold.json.gate'), '');
    expect(await toolNames(await listening)).toContain('npxfix__add');
    await stop(child, 'SIGTERM');

    // An install cut short: npx finds its folder and runs it, and a module is missing.
    const npx = join(cache, '_npx');
    const [hash = ''] = await readdir(npx);
    await rm(join(npx, hash, 'node_modules', BIN, 'lib.mjs'));
    const ran = await runInProcess(['--config', config, 'tools', 'list'], { cwd: dir });
    expect(ran.stderr).toContain('ERR_MODULE_NOT_FOUND');
    // The cache's path came from the config's env, so it is masked as a secret would be.
    expect(ran.stderr).toContain(
      `npx's cache folder ***/_npx/${hash} is incomplete (an earlier npx install was ended midway); remove it (rm -rf "***/_npx/${hash}") or run "npm cache clean --force"`,
    );
  });

  it("ends npx's whole process group when a server's timeout runs out, naming the bound", async () => {
    const dir = tempDir();
    const config = await writeConfig('short.json', join(dir, 'npm-cache-b'), { timeout: 2 });
    const ran = await runInProcess(['--config', config, 'tools', 'list'], { cwd: dir });
    expect(ran.stderr).toMatch(/npxfix could not connect: .*start bound of 2000 ms/);
    // The postinstall step, a grandchild of npx, went with it.
    const pid = Number(await readFile(join(dir, 'short.json.pid'), 'utf8'));
    expect(await ended(pid)).toBe(true);
    expect(existsSync(join(dir, 'short.json.gate'))).toBe(false);
  });
});
