import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkIdPart,
  formatToolId,
  NAMESPACE_PATTERN,
  parseToolId,
  TOOL_NAME_PATTERN,
  toolId,
  VERSION_PATTERN,
} from './ids.js';
import { errorCodeOf } from './testing/error-code.js';

const nameArb = fc.stringMatching(/^[A-Za-z0-9_.-]{1,128}$/);
const namespaceArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
const versionArb = fc.stringMatching(/^[A-Za-z0-9_.+-]{1,64}$/);

describe('toolId', () => {
  it('returns the bare name when there is no namespace', () => {
    expect(toolId({ name: 'echo' })).toBe('echo');
  });

  it('returns namespace:name when there is a namespace', () => {
    expect(toolId({ namespace: 'github', name: 'create_issue' })).toBe('github:create_issue');
  });

  it('appends the version only when there is a namespace', () => {
    expect(toolId({ namespace: 'github', name: 'create_issue', version: '1.2.0' })).toBe(
      'github:create_issue:1.2.0',
    );
    expect(toolId({ name: 'echo', version: '1.0.0' })).toBe('echo');
  });

  it('throws invalid_tool_id for a name outside the MCP rule', () => {
    expect(errorCodeOf(() => toolId({ name: 'has space' }))).toBe('invalid_tool_id');
    expect(errorCodeOf(() => toolId({ name: 'a'.repeat(129) }))).toBe('invalid_tool_id');
    expect(errorCodeOf(() => toolId({ namespace: 'a.b', name: 'x' }))).toBe('invalid_tool_id');
  });

  it('throws invalid_tool_id, not a TypeError, for a tool that is not an object', () => {
    for (const tool of [null, undefined, 'echo', 42]) {
      expect(errorCodeOf(() => toolId(tool as never))).toBe('invalid_tool_id');
    }
  });
});

describe('parseToolId', () => {
  it('parses the three canonical forms', () => {
    expect(parseToolId('echo')).toEqual({ name: 'echo' });
    expect(parseToolId('fs:read_file')).toEqual({ namespace: 'fs', name: 'read_file' });
    expect(parseToolId('fs:read_file:2.0.0-beta+1')).toEqual({
      namespace: 'fs',
      name: 'read_file',
      version: '2.0.0-beta+1',
    });
  });

  it('keeps dots in names, so ns.name stays a bare name', () => {
    expect(parseToolId('files.read')).toEqual({ name: 'files.read' });
  });

  it.each([
    ['an empty string', ''],
    ['an empty namespace', ':name'],
    ['an empty name', 'ns:'],
    ['an empty version', 'ns:name:'],
    ['too many colons', 'a:b:c:d'],
    ['a space', 'ns:bad name'],
    ['a slash', 'ns/name'],
    ['a dot in the namespace', 'a.b:name'],
    ['non-ASCII letters', 'ns:naïve'],
    ['a 129-character name', 'a'.repeat(129)],
    ['a 65-character namespace', `${'n'.repeat(65)}:x`],
    ['a newline', 'ns:name\n'],
  ])('throws invalid_tool_id for %s', (_label, id) => {
    expect(errorCodeOf(() => parseToolId(id))).toBe('invalid_tool_id');
  });

  it.each([undefined, null, 42, {}, ['a'], Symbol('x')])(
    'throws invalid_tool_id for the non-string %s',
    (id) => {
      expect(errorCodeOf(() => parseToolId(id))).toBe('invalid_tool_id');
    },
  );

  it('names the offending characters in its message', () => {
    expect(() => parseToolId('ns:a b/c')).toThrow(/" ", "\/"/);
  });

  it('round-trips every valid ID (property)', () => {
    fc.assert(
      fc.property(
        fc.option(namespaceArb, { nil: undefined }),
        nameArb,
        fc.option(versionArb, { nil: undefined }),
        (namespace, name, version) => {
          const id = formatToolId({ namespace, name, version });
          const parts = parseToolId(id);
          expect(parts.name).toBe(name);
          expect(parts.namespace).toBe(namespace);
          expect(parts.version).toBe(namespace === undefined ? undefined : version);
          expect(formatToolId(parts)).toBe(id);
        },
      ),
    );
  });

  it('either parses or throws invalid_tool_id for any string (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (id) => {
        const code = errorCodeOf(() => parseToolId(id));
        expect(code === undefined || code === 'invalid_tool_id').toBe(true);
      }),
    );
  });
});

describe('checkIdPart', () => {
  // Mostly allowed characters, with a few of every other kind, around the length limits.
  const charArb = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...'aZ09_.-+'.split('')) },
    { weight: 1, arbitrary: fc.constantFrom(':', ' ', '\n', '/', '\u00e9', '\u{1f600}', '\0') },
  );
  const partArb = fc.oneof(
    fc.array(charArb, { maxLength: 6 }).map((chars) => chars.join('')),
    fc.array(charArb, { minLength: 60, maxLength: 132 }).map((chars) => chars.join('')),
  );

  it('accepts exactly what the name, namespace and version patterns accept', () => {
    fc.assert(
      fc.property(partArb, (value) => {
        expect(checkIdPart(value, 'name') === undefined).toBe(TOOL_NAME_PATTERN.test(value));
        expect(checkIdPart(value, 'namespace') === undefined).toBe(NAMESPACE_PATTERN.test(value));
        expect(checkIdPart(value, 'version') === undefined).toBe(VERSION_PATTERN.test(value));
      }),
      { numRuns: 2000 },
    );
  });
});
