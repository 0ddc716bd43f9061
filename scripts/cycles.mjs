#!/usr/bin/env node
// Fails when any package's src/ has an import cycle between its own files, type-only imports
// included: `import type` and `import('./x.js').T` tie modules together for a reader and for the
// compiler even where they vanish at run time, and tools like madge skip them.
//
// TypeScript's own pre-processor lists each file's module references (static, type-only,
// re-exports, dynamic and `import()` types), so comments and strings are never mistaken for
// imports. Only relative specifiers are followed: packages reach each other by name, and their
// layering is checked elsewhere.
//
// Usage: node scripts/cycles.mjs [package-dir ...]   (default: every packages/*/src)
import console from 'node:console';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sourceFile = /\.(?:ts|tsx|mts|cts)$/;

/** Every TypeScript file under `dir`, skipping declaration files. */
function listSources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSources(path));
    else if (sourceFile.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The file a relative specifier names, the way `moduleResolution: nodenext` finds it. */
function resolveSpecifier(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [];
  const js = /\.(m|c)?jsx?$/.exec(base);
  if (js) {
    const stem = base.slice(0, -js[0].length);
    const ext = js[1] ?? '';
    candidates.push(`${stem}.${ext}ts`, `${stem}.${ext}tsx`);
  }
  candidates.push(base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'));
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** The import graph of one package's src/: file → the files it imports. */
function graphOf(srcDir) {
  const graph = new Map();
  for (const file of listSources(srcDir)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set();
    for (const ref of [...info.importedFiles, ...info.referencedFiles]) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = resolveSpecifier(file, ref.fileName);
      if (target !== undefined) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Strongly connected components with more than one file, or a file that imports itself. */
function cyclicComponents(graph) {
  // Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack.
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++];
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node), index.get(to)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent), low.get(frame.node)));
      }
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfLoop = (graph.get(frame.node) ?? []).includes(frame.node);
      if (component.length > 1 || selfLoop) components.push(component.sort());
    }
  }
  return components;
}

/** One shortest cycle through `start` inside `members` (breadth-first), as a list of files. */
function shortestCycle(graph, members, start) {
  const inside = new Set(members);
  const parent = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of graph.get(node) ?? []) {
      if (!inside.has(to)) continue;
      if (to === start) {
        const path = [node];
        while (parent.get(path[0]) !== undefined) path.unshift(parent.get(path[0]));
        return [...path, start];
      }
      if (!parent.has(to)) {
        parent.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start];
}

const packagesDir = join(root, 'packages');
const args = process.argv.slice(2);
const srcDirs = (
  args.length > 0
    ? args.map((arg) => resolve(arg))
    : readdirSync(packagesDir).map((name) => join(packagesDir, name))
)
  .map((dir) => (dir.endsWith('/src') ? dir : join(dir, 'src')))
  .filter((dir) => existsSync(dir))
  .sort();

const show = (file) => relative(root, file);
let found = 0;
for (const srcDir of srcDirs) {
  const graph = graphOf(srcDir);
  for (const component of cyclicComponents(graph)) {
    found++;
    const cycle = shortestCycle(graph, component, component[0]);
    console.log(`cycle in ${show(srcDir)} (${component.length} files):`);
    console.log(`  ${cycle.map((file) => relative(srcDir, file)).join(' → ')}`);
    if (component.length > cycle.length - 1) {
      console.log(
        `  all files in it: ${component.map((file) => relative(srcDir, file)).join(', ')}`,
      );
    }
  }
}

if (found > 0) {
  console.log(`${found} import cycle(s) found (type-only imports included).`);
  process.exit(1);
}
console.log(`no import cycles in ${srcDirs.length} package(s) (type-only imports included).`);
