import { createToolkit, defineTool } from '@toolplane/toolkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { typecheck } from './testing/typecheck.js';

// A hostile tool catalogue: names that are reserved words or Object.prototype's, titles and
// descriptions that try to end their comment, references that point nowhere or everywhere.

/** `levels` schemas, each using the next eight times where a reference is written inline. */
function fanOut(levels: number): Record<string, unknown> {
  const defs: Record<string, unknown> = { [`a${String(levels)}`]: { type: 'number' } };
  for (let i = 0; i < levels; i++) {
    defs[`a${String(i)}`] = {
      anyOf: Array.from({ length: 8 }, (_, k) => ({
        allOf: [{ $ref: `#/$defs/a${String(i + 1)}` }, { const: k }],
      })),
    };
  }
  return { type: 'object', properties: { x: { anyOf: [{ $ref: '#/$defs/a0' }] } }, $defs: defs };
}

const tool = (name: string, extra: Record<string, unknown> = {}) =>
  defineTool({
    name,
    description: 'A tool.',
    input: { type: 'object' },
    run: () => ({}),
    ...extra,
  });

const codes: CodeMode[] = [];
afterAll(async () => {
  await Promise.all(codes.map((code) => code.close()));
});

function codeModeOf(...tools: ReturnType<typeof tool>[]): CodeMode {
  const code = createCodeMode(createToolkit({ tools }));
  codes.push(code);
  return code;
}

describe('declarations of a hostile catalogue', () => {
  it('type-check whatever the titles, descriptions and names say', () => {
    const code = codeModeOf(
      tool('titled', { title: 'Evil */ declare const injected: number; /*' }),
      tool('described', { description: 'ends */ here\r\nand /* there */' }),
      tool('__proto__'),
      tool('constructor'),
      tool('delete'),
      tool('get-sum.v2'),
    );
    const declarations = code.declarations();
    expect(declarations).not.toMatch(/^\s*\* Evil \*\/ declare/m);
    expect(typecheck(declarations)).toEqual([]);
  });

  it('declare a reference with a malformed escape as unknown', () => {
    const input = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/%E0%A4%A' } },
      $defs: { x: { type: 'string' } },
    };
    const code = codeModeOf(tool('bad_ref', { input }));
    const declarations = code.declarations();
    expect(declarations).toContain('a?: unknown;');
    expect(typecheck(declarations)).toEqual([]);
  });

  it('bound what references used many times over cost, and still type-check', () => {
    const code = codeModeOf(tool('fan_out', { input: fanOut(7) }));
    const declaration = code.describe('builtin:fan_out');
    // Written out, 8^7 branches: tens of MB, built synchronously.
    expect(declaration.length).toBeLessThan(2_000_000);
    expect(declaration).toContain('unknown');
    expect(typecheck(declaration)).toEqual([]);
  });
});
