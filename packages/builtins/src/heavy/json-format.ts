/** What formatting JSON answers: the text, or why there is none. */
export type FormatOutcome =
  | { readonly ok: true; readonly text: string; readonly bytes: number }
  | {
      readonly ok: false;
      readonly code: 'invalid_argument' | 'resource_exhausted';
      readonly message: string;
    };

/** How {@link formatJson} prints. */
export interface FormatOptions {
  /** Spaces per level; 0 minifies. */
  readonly indent: number;
  /** Print object keys in sorted order. */
  readonly sortKeys: boolean;
  /** Most UTF-8 bytes the printed text may have. */
  readonly maxBytes: number;
}

/**
 * Where the printer's pieces go: {@link Measure} only counts them (so a too-large answer is
 * refused before any of it is built), {@link Build} keeps them.
 */
interface Sink {
  /** Structural text: ASCII only, so its length is its size in bytes. */
  ascii(text: string): void;
  /** A JSON string literal or number, of any characters. */
  literal(text: string): void;
  /** A line break and the indentation of `depth` levels. */
  newline(depth: number): void;
}

class Measure implements Sink {
  bytes = 0;
  constructor(private readonly indent: number) {}
  ascii(text: string): void {
    this.bytes += text.length;
  }
  literal(text: string): void {
    this.bytes += Buffer.byteLength(text);
  }
  newline(depth: number): void {
    this.bytes += 1 + this.indent * depth;
  }
}

class Build implements Sink {
  readonly parts: string[] = [];
  private readonly breaks: string[] = [];
  constructor(private readonly indent: number) {}
  ascii(text: string): void {
    this.parts.push(text);
  }
  literal(text: string): void {
    this.parts.push(text);
  }
  newline(depth: number): void {
    this.parts.push((this.breaks[depth] ??= `\n${' '.repeat(this.indent * depth)}`));
  }
}

/** One open array or object while printing: its entries and how far the printer has come. */
interface Frame {
  readonly keys: readonly string[] | undefined;
  readonly value: Record<string, unknown> | readonly unknown[];
  readonly depth: number;
  next: number;
}

/**
 * Prints a parsed JSON value as `JSON.stringify(value, null, indent)` would (keys sorted when
 * asked), with an explicit stack rather than recursion, so nesting depth is bounded by memory,
 * not by the call stack (4,500 levels overflowed it).
 */
function print(value: unknown, indent: number, sortKeys: boolean, sink: Sink): void {
  const stack: Frame[] = [];
  const colon = indent > 0 ? ': ' : ':';
  // Opens a container (pushing its frame) or prints a primitive.
  const open = (item: unknown, depth: number): void => {
    if (typeof item !== 'object' || item === null) {
      // Parsed JSON holds no undefined, function or symbol: every primitive prints.
      sink.literal(JSON.stringify(item));
      return;
    }
    if (Array.isArray(item)) {
      if (item.length === 0) sink.ascii('[]');
      else {
        sink.ascii('[');
        stack.push({ keys: undefined, value: item as unknown[], depth, next: 0 });
      }
      return;
    }
    const keys = Object.keys(item);
    if (sortKeys) keys.sort();
    if (keys.length === 0) sink.ascii('{}');
    else {
      sink.ascii('{');
      stack.push({ keys, value: item as Record<string, unknown>, depth, next: 0 });
    }
  };
  open(value, 0);
  for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
    const { keys, depth } = frame;
    const size = keys === undefined ? (frame.value as unknown[]).length : keys.length;
    if (frame.next === size) {
      stack.pop();
      if (indent > 0) sink.newline(depth);
      sink.ascii(keys === undefined ? ']' : '}');
      continue;
    }
    if (frame.next > 0) sink.ascii(',');
    if (indent > 0) sink.newline(depth + 1);
    const index = frame.next++;
    if (keys === undefined) {
      open((frame.value as unknown[])[index], depth + 1);
    } else {
      const key = keys[index] ?? '';
      sink.literal(JSON.stringify(key));
      sink.ascii(colon);
      open((frame.value as Record<string, unknown>)[key], depth + 1);
    }
  }
}

/**
 * Parses and re-prints JSON text, refusing an answer over `maxBytes` from the document's shape
 * before printing any of it: a few KB of nested arrays indented 8 deep would otherwise print
 * hundreds of MB.
 */
export function formatJson(json: string, options: FormatOptions): FormatOutcome {
  let value: unknown;
  try {
    value = JSON.parse(json) as unknown;
  } catch (error) {
    return { ok: false, code: 'invalid_argument', message: syntaxError(json, error) };
  }
  const { indent, sortKeys, maxBytes } = options;
  const measure = new Measure(indent);
  print(value, indent, sortKeys, measure);
  if (measure.bytes > maxBytes) {
    const minified = new Measure(0);
    if (indent > 0) print(value, 0, false, minified);
    const smaller = indent > 0 ? ` (minified, indent 0, it is ${String(minified.bytes)})` : '';
    return {
      ok: false,
      code: 'resource_exhausted',
      message: `the formatted JSON would be ${String(measure.bytes)} bytes, more than the ${String(maxBytes)} allowed${smaller}: format a part of the document, or a smaller indent`,
    };
  }
  const build = new Build(indent);
  print(value, indent, sortKeys, build);
  return { ok: true, text: build.parts.join(''), bytes: measure.bytes };
}

/** Why `text` is not JSON, with the line and column of the first error when the parser names one. */
export function syntaxError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const at = /position (\d+)/.exec(message)?.[1];
  let where = '';
  if (at !== undefined) {
    const before = text.slice(0, Number(at)).split('\n');
    where = ` at line ${String(before.length)}, column ${String((before.at(-1)?.length ?? 0) + 1)}`;
  }
  return `json: not valid JSON${where}: ${message}`;
}
