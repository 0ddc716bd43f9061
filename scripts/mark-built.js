// Run after a successful `turbo run build`: marks each package's build as current. Turbo
// restores a cached build without touching files already in place, so after a checkout the
// source can look newer than a build that matches it byte for byte; packages/cli/bin/toolplane.js
// trusts a build only when it is newer than its source, and would otherwise run the source.
//
//   node scripts/mark-built.js                  every package with a build
//   node scripts/mark-built.js @toolplane/cli   that package and the workspace packages it uses
import { existsSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const root = join(import.meta.dirname, '..', 'packages');
const folderOf = (name) => join(root, name.slice(name.indexOf('/') + 1));

const wanted = process.argv[2];
const folders =
  wanted === undefined ? readdirSync(root).map((name) => join(root, name)) : closure(wanted);
const now = new Date();
for (const folder of folders) {
  // The CLI's bundle (dist/bundle/, built after dist/ from the builds of every package it uses)
  // is run only when newer than all their sources: it is as current as the builds it holds.
  for (const built of [
    join(folder, 'dist', 'index.js'),
    join(folder, 'dist', 'bundle', 'toolplane.js'),
  ]) {
    if (existsSync(built)) utimesSync(built, now, now);
  }
}

function closure(name) {
  const found = new Set();
  const pending = [folderOf(name)];
  while (pending.length > 0) {
    const folder = pending.pop();
    if (found.has(folder)) continue;
    found.add(folder);
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) {
      if (String(range).startsWith('workspace:')) pending.push(folderOf(dep));
    }
  }
  return found;
}
