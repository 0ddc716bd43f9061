/** An over-long line {@link NdjsonLineSplitter} skipped, as it reports it once the line ends. */
export interface SkippedLine {
  /** The line's length in bytes (without its newline). */
  readonly bytes: number;
  /** Its first bytes (at most `edgeBytes`), to tell what the line was. */
  readonly head: Uint8Array;
  /** Its last bytes (at most `edgeBytes`), where a response's ID often is. */
  readonly tail: Uint8Array;
}

/** Options of {@link NdjsonLineSplitter}. */
export interface NdjsonLineSplitterOptions {
  /** The longest line delivered, in bytes of UTF-8 without its newline; longer ones are skipped. */
  readonly maxLineBytes: number;
  /** Hears each line that is not blank, in order, decoded, without a trailing `\r`. */
  readonly onLine: (line: string) => void;
  /** Hears an over-long line as soon as it passes the cap (once per line); its rest is skipped. */
  readonly onOverflow?: () => void;
  /** Hears an over-long line once its newline comes, with its size and its ends. */
  readonly onSkipped?: (line: SkippedLine) => void;
  /** How many bytes of each end of a skipped line are kept (default 512). */
  readonly edgeBytes?: number;
}

const NEWLINE = 0x0a;
const EMPTY = new Uint8Array(0);

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0] ?? EMPTY;
  const joined = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}

/** The last `count` bytes of `parts` taken as one. */
function lastBytes(parts: readonly Uint8Array[], count: number): Uint8Array {
  const kept: Uint8Array[] = [];
  let length = 0;
  for (let i = parts.length - 1; i >= 0 && length < count; i--) {
    const part = parts[i] ?? EMPTY;
    const piece = part.subarray(Math.max(0, part.length - (count - length)));
    kept.unshift(piece);
    length += piece.length;
  }
  return concat(kept, length);
}

/**
 * Splits a byte stream of newline-delimited JSON (MCP's stdio transport, either side) into
 * lines, holding at most `maxLineBytes` of a line: a longer one is skipped as it streams in,
 * never buffered whole, and reported (see {@link NdjsonLineSplitterOptions.onOverflow} and
 * {@link NdjsonLineSplitterOptions.onSkipped}) so the one message is refused while the stream
 * goes on. Chunks are split where they come, without copying what came before; a line is decoded
 * once, when it ends, so a character split across chunks is read whole. Works on `Uint8Array`s
 * (a Node `Buffer` is one), so it runs wherever toolmodel does.
 */
export class NdjsonLineSplitter {
  readonly #options: NdjsonLineSplitterOptions;
  readonly #max: number;
  readonly #edge: number;
  readonly #decoder = new TextDecoder();
  readonly #encoder = new TextEncoder();
  // The current line's pieces and their length; while skipping an over-long line, its ends.
  #parts: Uint8Array[] = [];
  #length = 0;
  #skipping: { head: Uint8Array; tail: Uint8Array; bytes: number } | undefined;

  constructor(options: NdjsonLineSplitterOptions) {
    this.#options = options;
    this.#max = options.maxLineBytes;
    this.#edge = options.edgeBytes ?? 512;
  }

  /** Reads `chunk` (text is taken as UTF-8), delivering every line it ends. */
  push(chunk: Uint8Array | string): void {
    const bytes = typeof chunk === 'string' ? this.#encoder.encode(chunk) : chunk;
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline === -1 ? bytes.length : newline;
      const piece = bytes.subarray(start, end);
      if (this.#skipping === undefined && this.#length + piece.length > this.#max) {
        // Too long: from here on only its length and its ends are kept.
        const head = concat([...this.#parts, piece], this.#length + piece.length).subarray(
          0,
          this.#edge,
        );
        this.#skipping = {
          head: head.slice(),
          tail: lastBytes(this.#parts, this.#edge).slice(),
          bytes: this.#length,
        };
        this.#parts = [];
        this.#length = 0;
        this.#options.onOverflow?.();
      }
      const skipping = this.#skipping;
      if (skipping === undefined) {
        this.#parts.push(piece);
        this.#length += piece.length;
      } else {
        skipping.bytes += piece.length;
        skipping.tail = lastBytes([skipping.tail, piece], this.#edge).slice();
      }
      if (newline === -1) return;
      this.#endLine();
      start = newline + 1;
    }
  }

  #endLine(): void {
    const skipped = this.#skipping;
    if (skipped !== undefined) {
      this.#skipping = undefined;
      this.#options.onSkipped?.(skipped);
      return;
    }
    let line = this.#decoder.decode(concat(this.#parts, this.#length));
    this.#parts = [];
    this.#length = 0;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() === '') return;
    this.#options.onLine(line);
  }
}
