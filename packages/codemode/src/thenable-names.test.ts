import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit, type Toolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';

// A real MCP server (the fixture, over stdio) with a tool named `then`, and a namespace named
// `then` too: `await` treats any object with a callable `then` as a promise, so an API object
// holding the tool under that name would call it with resolve/reject and never settle.

let toolkit: Toolkit;
let running: RunningToolkit;
let code: CodeMode;
beforeAll(async () => {
  toolkit = createToolkit();
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'then' });
  running = await runToolkit(toolkit);
  const listed = new Promise<void>((resolve) => {
    const stop = toolkit.index.onChange(() => {
      if (toolkit.index.hasTool('fx:then')) {
        stop();
        resolve();
      }
    });
  });
  await toolkit.callTool('fx:define-tool', { name: 'then' });
  await listed;
  code = createCodeMode(toolkit, { timeoutMs: 10_000 });
});
afterAll(async () => {
  await code.close();
  await running.stop();
});

describe('a tool named then', () => {
  it('is called as then_2, and its namespace object can be awaited', async () => {
    const { value } = await code.run(`
      const fx = await tools.fx;
      const echoed = await fx.then_2({ text: 'called' });
      return { same: fx === tools.fx, then: typeof fx.then, echoed };
    `);
    expect(value).toEqual({ same: true, then: 'undefined', echoed: 'called' });
  });

  it('is a namespace object a program can return, and an async function can resolve to', async () => {
    const { value } = await code.run(`
      const get = async () => tools.fx;
      const fx = await get();
      return Object.keys(fx).filter((name) => name.startsWith('then'));
    `);
    expect(value).toEqual(['then_2']);
  });

  it('is named so in the declarations, which say why', () => {
    const text = code.declarations();
    expect(text).toMatch(/then_2\(args: \{/);
    expect(text).not.toMatch(/\bthen\(args/);
    expect(text).toContain('Tool `fx:then`');
    expect(text).toMatch(/`then`.*await/);
  });

  it('is found by search under the name a program calls it by', async () => {
    const { value } = await code.run(
      `return (await search('Defined at run time: then')).find((t) => t.id === 'fx:then')?.call;`,
    );
    expect(value).toBe('tools.fx.then_2');
  });
});

describe('a namespace named then', () => {
  it('keeps its name: a namespace is an object, never called by await', async () => {
    const { value } = await code.run(`
      const api = await tools;
      const ns = await tools.then;
      return { same: api === tools && ns === tools.then, sum: (await ns.add({ a: 2, b: 3 })).sum };
    `);
    expect(value).toEqual({ same: true, sum: 5 });
  });
});
