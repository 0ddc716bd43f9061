import { ToolError } from '@toolplane/toolkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseArgs } from './args.js';

const schema = {
  type: 'object',
  properties: {
    n: { type: 'integer' },
    on: { type: 'boolean' },
    name: { type: 'string' },
    tags: { type: 'array' },
    user: { type: 'object', properties: { age: { type: 'number' } } },
  },
};

describe('parseArgs', () => {
  it('reads each value by the type its property declares', () => {
    expect(
      parseArgs({
        schema,
        pairs: [
          'n=3',
          'on=true',
          'name=42',
          'tags=["a"]',
          'user.age=7',
          'extra={"x":1}',
          'free=text',
        ],
      }),
    ).toEqual({
      n: 3,
      on: true,
      name: '42',
      tags: ['a'],
      user: { age: 7 },
      extra: { x: 1 },
      free: 'text',
    });
  });

  it('drops the newline a value read from stdin ends with, for an enum value or a boolean only', () => {
    const colours = {
      type: 'object',
      properties: { color: { type: 'string', enum: ['red', 'green'] }, on: { type: 'boolean' } },
    };
    expect(parseArgs({ schema: colours, pairs: ['color=red\n', 'on=true\r\n'] })).toEqual({
      color: 'red',
      on: true,
    });
    // Free text keeps it: it may be what the file holds.
    expect(parseArgs({ schema, pairs: ['name=a line\n'] })).toEqual({ name: 'a line\n' });
  });

  it('lets key=value override --args JSON', () => {
    expect(parseArgs({ schema, json: '{"n":1,"name":"a"}', pairs: ['n=2'] })).toEqual({
      n: 2,
      name: 'a',
    });
  });

  it('keeps any string value of a string property exactly', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        expect(parseArgs({ schema, pairs: [`name=${value}`] })).toEqual({ name: value });
      }),
    );
  });

  it('throws invalid_argument for malformed words and JSON', () => {
    for (const options of [
      { pairs: ['novalue'] },
      { pairs: ['=x'] },
      { json: '[1]' },
      { json: '{' },
      { pairs: ['__proto__.x=1'] },
    ]) {
      try {
        parseArgs(options);
        expect.unreachable();
      } catch (error) {
        expect(ToolError.isInstance(error) && error.code).toBe('invalid_argument');
      }
    }
  });
});

describe('parseArgs: an integer JSON would read as another number', () => {
  const refused = (options: Parameters<typeof parseArgs>[0]): ToolError => {
    try {
      parseArgs(options);
    } catch (error) {
      if (ToolError.isInstance(error)) return error;
    }
    throw new Error('not refused');
  };

  it('refuses it in --args, in a number and in JSON of key=value, naming it', () => {
    for (const options of [
      { schema, json: '{"n":9007199254740993}' },
      { schema, pairs: ['n=9007199254740993'] },
      { schema, pairs: ['tags=[1,9007199254740993]'] },
      { schema, pairs: ['extra=9007199254740993'] },
    ]) {
      const error = refused(options);
      expect(error.code).toBe('invalid_argument');
      expect(error.message).toMatch(/the integer 9007199254740993 in .* 9007199254740992/);
    }
  });

  it('reads a number too large for a double as Infinity, for validation to refuse as a number', () => {
    expect(parseArgs({ schema, pairs: ['user.age=1e400', 'n=-1e999'] })).toEqual({
      user: { age: Infinity },
      n: -Infinity,
    });
  });

  it('passes 2^53 - 1, floats and digits a string property takes as text', () => {
    expect(
      parseArgs({
        schema,
        json: '{"n":9007199254740991,"x":1e300}',
        pairs: ['name=9007199254740993', 'user.age=0.30000000000000004'],
      }),
    ).toEqual({
      n: 9007199254740991,
      x: 1e300,
      name: '9007199254740993',
      user: { age: 0.30000000000000004 },
    });
  });
});

describe('parseArgs: a value its declared type cannot take', () => {
  it('refuses text for an array or object as the schema would, naming the argument', () => {
    const declared = {
      type: 'object',
      properties: { 'a/b': { type: 'object', properties: { tags: { type: 'array' } } } },
    };
    try {
      parseArgs({ schema: declared, pairs: ['a/b.tags=red,green'] });
      expect.unreachable();
    } catch (error) {
      expect(ToolError.isInstance(error) && error.code).toBe('validation');
      expect((error as ToolError).errors).toEqual([
        { path: '/a~1b/tags', keyword: 'type', message: 'expected JSON for an array' },
      ]);
      expect((error as ToolError).message).toContain('a/b.tags=red,green');
    }
  });
});
