// Go's fmt, as text/template prints values: `%v` for what an action outputs, and the `printf`
// verbs prompt files use. Values are JSON data plus Go's integers (bigint here: template literals
// like `3` and what `len` returns), so that `1e6` from JSON prints as Go prints a float64
// (`1e+06`) and `len` as an int (`1000000`).

/** A missing map key: Go prints it as `<no value>` and passes it to functions as nil. */
export const MISSING: unique symbol = Symbol('no value');

/** A value inside a template: JSON, Go's integers, or {@link MISSING}. */
export type Value =
  | string
  | number
  | bigint
  | boolean
  | null
  | typeof MISSING
  | readonly Value[]
  | { readonly [key: string]: Value };

/** Go's name for a value's type, for messages (`float64`, `[]interface {}`). */
export function typeName(value: Value): string {
  if (value === MISSING) return '<no value>';
  if (value === null) return 'nil';
  if (Array.isArray(value)) return '[]interface {}';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'bigint':
      return 'int';
    case 'boolean':
      return 'bool';
    default:
      return 'map[string]interface {}';
  }
}

/** `fmt.Sprint(value)`, i.e. `%v`. */
export function formatValue(value: Value): string {
  if (value === MISSING) return '<no value>';
  if (value === null) return '<nil>';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return formatFloat(value);
    case 'bigint':
    case 'boolean':
      return String(value);
    default:
      break;
  }
  if (Array.isArray(value)) return `[${value.map((item: Value) => formatNested(item)).join(' ')}]`;
  const object = value as { readonly [key: string]: Value };
  const keys = Object.keys(object).sort();
  return `map[${keys.map((key) => `${key}:${formatNested(object[key] ?? null)}`).join(' ')}]`;
}

// Inside a slice or map, fmt prints a nil interface as <nil> too.
function formatNested(value: Value): string {
  return value === MISSING ? '<nil>' : formatValue(value);
}

/** A float64 as `%v` prints it: the shortest digits, in exponent form below 1e-4 and from 1e6 up. */
export function formatFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  // strconv's shortest %g uses exponent form when the exponent is below -4 or at least 6.
  if (exponent < -4 || exponent >= 6) return `${mantissa}e${exponentSign(exponent)}`;
  return String(value);
}

function exponentSign(exponent: number): string {
  return `${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** `fmt.Sprint(args...)`: spaces between operands when neither side is a string. */
export function sprint(args: readonly Value[]): string {
  let out = '';
  args.forEach((arg, i) => {
    if (i > 0 && typeof arg !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += formatValue(arg);
  });
  return out;
}

/** `fmt.Sprintln(args...)`: always spaces, and a newline. */
export function sprintln(args: readonly Value[]): string {
  return `${args.map(formatValue).join(' ')}\n`;
}

const VERB = /%([-+# 0]*)(\d+)?(?:\.(\d*))?([a-zA-Z%])/g;
/** Widths and precisions past this are refused: `%999999999d` must not build a gigabyte. */
export const MAX_WIDTH = 10_000;

/**
 * `fmt.Sprintf(format, args...)` for the verbs `v s d f F e E g G t q x X c %`, with the flags
 * `- + 0 space`, width and precision. Go's own markers stand for misuse: `%!d(MISSING)`,
 * `%!d(string=x)`, `%!(EXTRA …)`.
 */
export function sprintf(format: string, args: readonly Value[]): string {
  let used = 0;
  const out = format.replace(
    VERB,
    (whole, flags: string, width?: string, precision?: string, verb?: string) => {
      if (verb === '%') return '%';
      if (Number(width ?? 0) > MAX_WIDTH || Number(precision ?? 0) > MAX_WIDTH) {
        throw new RangeError(`printf width or precision over ${MAX_WIDTH} in ${whole}`);
      }
      if (used >= args.length) return `%!${verb ?? ''}(MISSING)`;
      const arg = args[used++] as Value;
      const text = formatVerb(
        verb ?? 'v',
        arg,
        precision === undefined ? undefined : Number(precision || 0),
        flags,
      );
      return pad(
        text,
        flags,
        width === undefined ? 0 : Number(width),
        typeof arg === 'number' || typeof arg === 'bigint',
      );
    },
  );
  if (used < args.length) {
    const extra = args.slice(used).map((arg) => `${typeName(arg)}=${formatValue(arg)}`);
    return `${out}%!(EXTRA ${extra.join(', ')})`;
  }
  return out;
}

function formatVerb(
  verb: string,
  arg: Value,
  precision: number | undefined,
  flags: string,
): string {
  const plus = flags.includes('+');
  const sign = (text: string, negative: boolean): string =>
    negative ? text : plus ? `+${text}` : flags.includes(' ') ? ` ${text}` : text;
  const bad = (): string => `%!${verb}(${typeName(arg)}=${formatValue(arg)})`;
  switch (verb) {
    case 'v':
      return typeof arg === 'number' && precision !== undefined
        ? arg.toPrecision(precision)
        : formatValue(arg);
    case 's': {
      const text = formatValue(arg);
      return precision === undefined ? text : Array.from(text).slice(0, precision).join('');
    }
    case 'q':
      return typeof arg === 'string' ? JSON.stringify(arg) : bad();
    case 't':
      return typeof arg === 'boolean' ? String(arg) : bad();
    case 'd': {
      // JSON numbers are float64s; a whole one prints as the integer a template author means.
      if (typeof arg === 'bigint') return sign(String(arg), arg < 0n);
      if (typeof arg === 'number' && Number.isInteger(arg)) return sign(arg.toFixed(0), arg < 0);
      return bad();
    }
    case 'x':
    case 'X': {
      let text: string;
      if (typeof arg === 'bigint') text = arg.toString(16);
      else if (typeof arg === 'number' && Number.isInteger(arg)) text = arg.toString(16);
      else if (typeof arg === 'string') text = Buffer.from(arg, 'utf8').toString('hex');
      else return bad();
      return verb === 'X' ? text.toUpperCase() : text;
    }
    case 'c':
      return typeof arg === 'bigint' || typeof arg === 'number'
        ? String.fromCodePoint(Number(arg))
        : bad();
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G': {
      if (typeof arg !== 'number' && typeof arg !== 'bigint') return bad();
      const value = Number(arg);
      let text: string;
      if (verb === 'f' || verb === 'F') text = value.toFixed(precision ?? 6);
      else if (verb === 'e' || verb === 'E') text = goExponent(value.toExponential(precision ?? 6));
      else
        text =
          precision === undefined
            ? formatFloat(value)
            : goExponent(String(Number(value.toPrecision(precision || 1))));
      if (verb === 'E' || verb === 'G') text = text.toUpperCase();
      return sign(text, value < 0 || Object.is(value, -0));
    }
    default:
      return `%!${verb}(${typeName(arg)}=${formatValue(arg)})`;
  }
}

// JavaScript writes `1.5e+7`; Go writes at least two exponent digits, `1.5e+07`.
function goExponent(text: string): string {
  return text.replace(/e([+-])(\d)$/, 'e$10$2');
}

function pad(text: string, flags: string, width: number, numeric: boolean): string {
  const length = Array.from(text).length;
  if (length >= width) return text;
  if (flags.includes('-')) return text + ' '.repeat(width - length);
  if (flags.includes('0') && numeric) {
    const signChar = /^[+\- ]/.exec(text)?.[0] ?? '';
    return signChar + '0'.repeat(width - length) + text.slice(signChar.length);
  }
  return ' '.repeat(width - length) + text;
}
