import { ToolError } from '@toolplane/toolmodel';

/**
 * What is wrong with `value` as an embedding vector of length `length` (any length when not
 * given), as the end of a sentence: `has length 5, not 8`; `undefined` when nothing is. A number
 * that a 32-bit float cannot hold counts as wrong, since vectors are kept as `Float32Array`s.
 */
export function vectorProblem(value: unknown, length: number | undefined): string | undefined {
  const list =
    Array.isArray(value) || value instanceof Float32Array || value instanceof Float64Array
      ? (value as ArrayLike<unknown>)
      : undefined;
  if (list === undefined || list.length === 0) return 'is not a non-empty list of numbers';
  if (length !== undefined && list.length !== length) {
    return `has length ${list.length}, not ${length}`;
  }
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (typeof x !== 'number' || !Number.isFinite(Math.fround(x))) {
      return 'holds something other than a finite number';
    }
  }
  return undefined;
}

/**
 * `value` as a vector of length `length` (any when not given).
 *
 * @throws {ToolError} `invalid_argument` naming what is wrong with it.
 */
export function toVector(value: unknown, length: number | undefined): Float32Array {
  const problem = vectorProblem(value, length);
  if (problem !== undefined) {
    throw new ToolError('invalid_argument', `embed returned a vector that ${problem}`);
  }
  return Float32Array.from(value as ArrayLike<number>);
}

/** The Euclidean length of `vector`. */
export function normOf(vector: Float32Array): number {
  let sum = 0;
  for (const x of vector) sum += x * x;
  return Math.sqrt(sum);
}
