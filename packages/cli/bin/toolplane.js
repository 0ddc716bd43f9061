#!/usr/bin/env node
// The `toolplane` command. An installed package, which ships no source, runs the compiled
// dist/bin.js, bundled with what it imports into dist/bundle/ by the build (scripts/bundle-bin.js:
// a start reads a few files instead of ~900 modules). So does a clone of the repository, where
// `pnpm install` builds every package (the root `prepare` script), as long as that build is
// fresh; a bundle older than a source it was built from (only dist/ rebuilt, by `tsc`) is not
// run: dist/bin.js is. A clone whose build is missing or older than its source (an edit, a
// checkout, a pull) never runs the stale build: it runs the TypeScript source through tsx
// instead, slower to start, and says so in one line on stderr (stdout may be an MCP client's
// stdio) until `pnpm build` refreshes dist.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import module, { register } from 'node:module';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

// From Node.js 22.1, V8's code for the modules a start compiles is kept on disk (in the system's
// temporary folder, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off) and read back
// by the next start instead of compiling them again (`tools list` took 8% less CPU on Node 22).
// Node.js 20 has no such cache for ES modules.
module.enableCompileCache?.();

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const source = new URL('../src/bin.ts', import.meta.url);

if (!existsSync(source)) {
  await import(built(0));
} else {
  const builds = { newest: 0 };
  const stale = staleBuild(builds);
  const tsx = stale === undefined ? undefined : tsxApi();
  if (tsx === undefined) {
    await import(built(builds.newest));
  } else {
    process.stderr.write(
      `toolplane: ${stale}; running the source through tsx (run pnpm build for a fast start)\n`,
    );
    // The workspace packages' `@toolplane/source` export condition, as `--conditions` would add it.
    register('./source-condition.js', import.meta.url);
    const { register: registerTsx } = await import(tsx);
    registerTsx();
    await import(source.href);
  }
}

/**
 * The built entry: the bundle, unless it is missing or older than `newest` (ms, the newest source
 * file it was built from). Build times are not compared: turbo's cache restores a package's
 * outputs in no particular order.
 */
function built(newest) {
  const bundle = new URL('../dist/bundle/toolplane.js', import.meta.url);
  const compiled = new URL('../dist/bin.js', import.meta.url);
  if (!existsSync(bundle)) return compiled.href;
  return statSync(bundle).mtimeMs >= newest ? bundle.href : compiled.href;
}

function tsxApi() {
  try {
    return import.meta.resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
}

/**
 * Why the build cannot be run (its dist missing, or older than a source file of this package or
 * of a workspace package it depends on), or undefined when it can; `builds.newest` is set to the
 * time of the newest of those source files. Workspace packages live in the sibling folder named after
 * their unscoped name.
 */
function staleBuild(builds) {
  const seen = new Set();
  const pending = [packageDir];
  while (pending.length > 0) {
    const dir = pending.pop();
    if (seen.has(dir)) continue;
    seen.add(dir);
    const index = join(dir, 'dist', 'index.js');
    if (!existsSync(index)) return `${join(dir, 'dist')} is missing`;
    const builtAt = statSync(index).mtimeMs;
    for (const file of sourceFiles(join(dir, 'src'))) {
      const changedAt = statSync(file).mtimeMs;
      if (changedAt > builtAt) return `${file} is newer than its build`;
      builds.newest = Math.max(builds.newest, changedAt);
    }
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
      if (String(range).startsWith('workspace:')) {
        pending.push(join(dir, '..', name.slice(name.indexOf('/') + 1)));
      }
    }
  }
  return undefined;
}

/**
 * The files under `dir`, test files left out. Walked one folder at a time: on Node 20 this takes
 * half the time of `readdirSync`'s `recursive` option. Paths are joined with a plain `/` (which
 * every platform's file system calls take): `path.join` normalises each one, which in a start's
 * not yet optimised code was a third of the walk (over ~500 files, medians of 25 starts: 11.4 ms
 * with it, 7.8 without), and every start in a clone pays the walk before it spawns a server.
 */
function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) yield* sourceFiles(`${dir}/${entry.name}`);
    else if (entry.isFile() && !entry.name.includes('.test.')) yield `${dir}/${entry.name}`;
  }
}
