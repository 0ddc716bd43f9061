import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolkit, type Toolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { addReferenceServers } from '@toolplane/test-support/reference-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { localToolkit } from './testing/local-toolkit.js';
import { typecheck } from './testing/typecheck.js';

// The declarations of the real tools of three reference MCP servers, run over stdio, compile
// with tsc --strict; a program written against them type-checks, and runs.

let dir: string;
let toolkit: Toolkit;
let running: RunningToolkit;
let code: CodeMode;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'codemode-servers-'));
  toolkit = createToolkit();
  addReferenceServers(toolkit, dir);
  running = await runToolkit(toolkit);
  code = createCodeMode(toolkit, { timeoutMs: 20_000 });
});
afterAll(async () => {
  await code.close();
  await running.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('declarations', () => {
  it('compile with tsc --strict for every tool of server-everything, -filesystem and -memory', () => {
    const ids = code.tools().map((tool) => tool.id);
    for (const namespace of ['everything', 'filesystem', 'memory']) {
      expect(ids.filter((id) => id.startsWith(`${namespace}:`)).length).toBeGreaterThan(2);
    }
    const declarations = code.declarations();
    for (const id of ids) expect(declarations).toContain(`Tool \`${id}\`.`);
    expect(typecheck(declarations)).toEqual([]);
  });

  it('type-check a program written against them, and reject a wrong one', () => {
    const program = `
      const entries = await tools.filesystem.list_allowed_directories();
      const echoed = await tools.everything.echo({ message: 'hi' });
      const found = await search('read a file');
      console.log(entries, echoed, found[0]?.call);
      return found.map((tool) => tool.id);
    `;
    const wrap = (body: string): string =>
      `${code.declarations()}\nasync function program() {${body}}\nvoid program;\n`;
    expect(typecheck(wrap(program))).toEqual([]);
    const wrong = typecheck(wrap(`await tools.everything.echo({ message: 42 });`));
    expect(wrong.length).toBeGreaterThan(0);
  });

  it('run a program over the three servers through the toolkit', async () => {
    const { value, calls } = await code.run(`
      await tools.filesystem.write_file({ path: ${JSON.stringify(join(dir, 'a.txt'))}, content: 'alpha' });
      const text = await tools.filesystem.read_text_file({ path: ${JSON.stringify(join(dir, 'a.txt'))} });
      await tools.memory.create_entities({ entities: [{ name: 'ada', entityType: 'person', observations: ['writes code'] }] });
      const graph = await tools.memory.read_graph();
      const echoed = await tools.everything.echo({ message: 'hi' });
      return { text, people: graph.entities.map((e) => e.name), echoed };
    `);
    expect(value).toMatchObject({ people: ['ada'] });
    expect(JSON.stringify(value)).toContain('alpha');
    expect(JSON.stringify(value)).toContain('hi');
    expect(calls.total).toBe(5);
  });

  it('describe one tool in the same form', () => {
    const one = code.describe('everything:echo');
    expect(one).toContain('readonly everything: {');
    expect(one).toContain('echo(args');
    expect(one).not.toContain('declare function search');
    expect(typecheck(one)).toEqual([]);
    expect(() => code.describe('everything:nope')).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
  });

  it('cover names that are not identifiers and tools with output schemas', () => {
    const local = createCodeMode(localToolkit().toolkit);
    const text = local.declarations();
    expect(text).toContain('get_sum_v2(args?: {');
    expect(text).toContain('add(args: {');
    expect(text).toMatch(/Promise<\{\s*sum: number;/);
    expect(typecheck(text)).toEqual([]);
    void local.close();
  });
});
