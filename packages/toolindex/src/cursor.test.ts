import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { errorCodeOf } from '@toolplane/toolmodel/testing';
import { createCursors } from './cursor.js';

describe('createCursors', () => {
  it('round-trips a position for the same version and scope', () => {
    const cursors = createCursors();
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.string(), (version, position, scope) => {
        expect(cursors.decode(cursors.encode(version, position, scope), version, scope)).toBe(
          position,
        );
      }),
    );
  });

  it('rejects a cursor for another version, scope or codec', () => {
    const cursors = createCursors();
    const cursor = cursors.encode(3, 40, 'list');
    expect(errorCodeOf(() => cursors.decode(cursor, 4, 'list'))).toBe('invalid_cursor');
    expect(errorCodeOf(() => cursors.decode(cursor, 3, 'search'))).toBe('invalid_cursor');
    expect(errorCodeOf(() => createCursors().decode(cursor, 3, 'list'))).toBe('invalid_cursor');
  });

  it('rejects any altered or arbitrary string', () => {
    const cursors = createCursors();
    const cursor = cursors.encode(7, 20, 'list');
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        fc.pre(text !== cursor);
        expect(errorCodeOf(() => cursors.decode(text, 7, 'list'))).toBe('invalid_cursor');
      }),
    );
    expect(errorCodeOf(() => cursors.decode(42, 7, 'list'))).toBe('invalid_cursor');
    const forged = btoa('7.10.0').replace(/=+$/, '');
    expect(errorCodeOf(() => cursors.decode(forged, 7, 'list'))).toBe('invalid_cursor');
  });
});
