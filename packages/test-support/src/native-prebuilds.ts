import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

// better-sqlite3's install script is `prebuild-install || node-gyp rebuild`: on a user's
// machine it downloads the binary built for their Node from the project's GitHub releases. The
// tarball test's machine reaches the npm registry only, so the download fails and node-gyp
// compiles SQLite from source: about 65 s of CPU, two thirds of the stranger's `npm install`.
// prebuild-install looks in a local folder first (`npm_config_<name>_local_prebuilds`), so the
// test puts there, under the release's file name, the binary the workspace's own install built
// for this Node from the same version. The install script still runs and unpacks it as it
// would a download; a version the workspace does not have is compiled, as before.

const run = promisify(execFile);

/**
 * Writes into `dir` a prebuild of the workspace's better-sqlite3, named as its GitHub release
 * names it, and returns the environment that points prebuild-install at `dir`.
 */
export async function lendPrebuilds(
  packagesDir: string,
  dir: string,
): Promise<Record<string, string>> {
  await mkdir(dir, { recursive: true });
  // Resolved as the package that depends on it does.
  const require = createRequire(join(packagesDir, 'store-sqlite', 'package.json'));
  const manifest = require.resolve('better-sqlite3/package.json');
  const { version } = require(manifest) as { version: string };
  const file = `better-sqlite3-v${version}-node-v${process.versions.modules}-${platform()}-${process.arch}.tar.gz`;
  // The archive holds build/Release/better_sqlite3.node, as the release's do.
  const binary = 'build/Release/better_sqlite3.node';
  await run('tar', ['-czf', join(dir, file), '-C', dirname(manifest), binary]);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

/** The platform part of a release's file name: `linux`, or `linuxmusl` on a musl libc. */
function platform(): string {
  if (process.platform !== 'linux') return process.platform;
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } })
    .header;
  return header?.glibcVersionRuntime === undefined ? 'linuxmusl' : 'linux';
}
