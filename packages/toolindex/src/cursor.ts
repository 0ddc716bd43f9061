import { ToolError } from '@toolplane/toolmodel';

/** Longest cursor string worth parsing; anything longer was not issued by {@link createCursors}. */
const MAX_CURSOR_LENGTH = 128;
const BODY = /^([0-9a-z]{1,11})\.([0-9a-z]{1,11})\.([0-9a-z]{1,14})$/;

/**
 * Issues and checks the opaque page cursors of one index. A cursor names a position in one
 * listing (its scope: which call, query and filters) at one index version, and carries a check
 * value keyed by a secret drawn when the index is created, so a cursor cannot be forged, edited,
 * moved to another listing or another index.
 *
 * @internal
 */
export interface Cursors {
  /** A cursor for `position` in the listing `scope` at index `version`. */
  encode(version: number, position: number, scope: string): string;
  /**
   * The position a cursor points at.
   *
   * @throws {ToolError} `invalid_cursor` when the cursor is malformed, forged, from another
   * listing, or from an earlier version of the index.
   */
  decode(cursor: unknown, version: number, scope: string): number;
}

/** A 53-bit FNV-1a style hash, ample to make guessing a check value hopeless in practice. */
function hash(text: string, seed: number): number {
  let h1 = 0x811c9dc5 ^ seed;
  let h2 = 0x01000193 ^ (seed >>> 7);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  h1 = Math.imul(h1 ^ (h2 >>> 15), 0x2c1b3c6d);
  h2 = Math.imul(h2 ^ (h1 >>> 13), 0x297a2d39);
  return (h2 >>> 0) * 0x200000 + ((h1 >>> 0) & 0x1fffff);
}

function randomSeed(): number {
  const words = new Uint32Array(2);
  globalThis.crypto.getRandomValues(words);
  return ((words[0] ?? 0) ^ Date.now()) >>> 0;
}

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    return atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
}

const invalid = (why: string): ToolError =>
  new ToolError(
    'invalid_cursor',
    `${why}; call again without a cursor to start from the first page`,
  );

/** Creates the cursor codec of one index, with its own secret. @internal */
export function createCursors(): Cursors {
  const secret = `${randomSeed().toString(36)}${randomSeed().toString(36)}`;
  const seed = randomSeed();
  const check = (version: number, position: number, scope: string): string =>
    hash(`${secret}\u0000${version}\u0000${position}\u0000${scope}`, seed).toString(36);

  return {
    encode(version, position, scope) {
      return toBase64Url(
        `${version.toString(36)}.${position.toString(36)}.${check(version, position, scope)}`,
      );
    },
    decode(cursor, version, scope) {
      if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) {
        throw invalid('cursor must be a non-empty string returned as nextCursor');
      }
      const match = BODY.exec(fromBase64Url(cursor) ?? '');
      if (match === null) throw invalid('cursor is malformed');
      const [, versionText = '', positionText = '', checkText = ''] = match;
      const cursorVersion = parseInt(versionText, 36);
      const position = parseInt(positionText, 36);
      if (check(cursorVersion, position, scope) !== checkText) {
        throw invalid('cursor was not issued by this index for this listing (or was altered)');
      }
      if (cursorVersion !== version) {
        throw invalid(
          `cursor belongs to index version ${cursorVersion} but the index is now at version ${version}, so the page it points to is gone`,
        );
      }
      return position;
    },
  };
}
