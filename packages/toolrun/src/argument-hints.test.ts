import type { Tool } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { withArgumentHints } from './argument-hints.js';

const tool: Tool = {
  name: 'date_add',
  inputSchema: {
    type: 'object',
    properties: { date: { type: 'string' }, months: { type: 'number' }, days: { type: 'number' } },
    additionalProperties: false,
  },
};

const unknown = (name: string) => ({
  path: `/${name}`,
  keyword: 'additionalProperties',
  message: `property "${name}" is not allowed`,
});

describe('withArgumentHints', () => {
  it('adds a "did you mean" from the schema\u2019s property names to a misspelt argument', () => {
    expect(withArgumentHints(tool, [unknown('monts')])).toEqual([
      { ...unknown('monts'), message: 'property "monts" is not allowed; did you mean "months"?' },
    ]);
    expect(withArgumentHints(tool, [unknown('Days')])[0]?.message).toMatch(/did you mean "days"/);
  });

  it('leaves alone a name nothing is near, nested paths and other errors', () => {
    const errors = [
      unknown('timezone_offset_minutes'),
      { path: '/date/monts', keyword: 'additionalProperties', message: 'x' },
      { path: '/months', keyword: 'type', message: 'must be number' },
    ];
    expect(withArgumentHints(tool, errors)).toEqual(errors);
  });
});
