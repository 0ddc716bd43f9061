import { describe, expect, it } from 'vitest';
import { checkEvidenceKeys, checkEvidenceRows, type UsageEvidence } from './usage-evidence.js';

const good: UsageEvidence = { toolId: 'billing:refund', term: 'undo', weight: 1, updatedAt: 0 };

describe('checkEvidenceRows', () => {
  it('takes well-formed rows, a zero weight and the latest time a Date holds included', () => {
    expect(() => {
      checkEvidenceRows([
        good,
        { ...good, weight: 0, updatedAt: 8.64e15, term: 'caf\u00e9 \u{1F600}' },
      ]);
    }).not.toThrow();
    expect(() => {
      checkEvidenceRows([]);
    }).not.toThrow();
  });

  it('names the first bad row and what is wrong with it', () => {
    const bad = (rows: unknown) => () => {
      checkEvidenceRows(rows as UsageEvidence[]);
    };
    expect(bad([good, { ...good, weight: Number.NaN }])).toThrow(
      'evidence row 1: weight must be a finite number of 0 or more, got NaN',
    );
    expect(bad([{ ...good, updatedAt: -5 }])).toThrow(
      'evidence row 0: updatedAt must be ms since the epoch from 0 to 8640000000000000, got -5',
    );
    expect(bad([good, good, { ...good, toolId: '' }])).toThrow(
      'evidence row 2: toolId must be a non-empty string, got ""',
    );
    expect(bad([null])).toThrow('evidence row 0: it is not an object');
    // A huge bad term is quoted by its start: the error is not as long as what it refuses.
    try {
      checkEvidenceRows([{ ...good, term: `\u0000${'x'.repeat(1_000_000)}` }]);
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(300);
    }
    expect(bad([{ ...good, term: 'a\u0000b' }])).toThrow(
      'evidence row 0: term must be well-formed text without NUL (U+0000), got "a\\u0000b"',
    );
    expect(bad([{ ...good, toolId: 'a:\uD800' }])).toThrow(/toolId must be well-formed text/);
    expect(bad([{ ...good, term: '\uDC00x' }])).toThrow(/term must be well-formed text/);
    expect(bad({ length: 1 })).toThrow('evidence rows must be an array');
    expect(bad([{ ...good, term: 3 }])).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});

describe('checkEvidenceKeys', () => {
  it('needs only the tool and the term of each row', () => {
    expect(() => {
      checkEvidenceKeys([{ toolId: 'a:b', term: 'q' }]);
    }).not.toThrow();
    expect(() => {
      checkEvidenceKeys([{ toolId: 'a:b', term: '' }]);
    }).toThrow('evidence row 0: term must be a non-empty string, got ""');
  });
});
