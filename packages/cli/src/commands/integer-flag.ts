import { ToolError } from '@toolplane/toolmodel/errors';

/**
 * A commander parser for `flag`'s value: an integer from `min` to `max`.
 *
 * @throws {ToolError} `invalid_argument` naming the flag (`--limit 500: must be an integer from
 * 1 to 100`).
 */
export function integerFlag(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new ToolError(
        'invalid_argument',
        `${flag} ${value}: must be an integer from ${String(min)} to ${String(max)}`,
      );
    }
    return n;
  };
}
