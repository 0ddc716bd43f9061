/** What a secret is replaced by wherever the CLI prints it. */
export const MASK = '***';

// Shorter values would mask ordinary digits and words all over the output.
const MIN_SECRET_LENGTH = 4;

/**
 * The secret values of a configuration (substituted environment variables, header values,
 * server environments, tokens, database passwords), so that every line the CLI prints, errors
 * included, can be scrubbed of them with {@link Secrets.redact}.
 */
export class Secrets {
  readonly #values = new Set<string>();
  #pattern: RegExp | undefined;

  /** Remembers `value` as a secret; short values are ignored. */
  add(value: string | undefined): void {
    if (value === undefined || value.length < MIN_SECRET_LENGTH || this.#values.has(value)) return;
    this.#values.add(value);
    this.#pattern = undefined;
  }

  /** How many secrets are known. */
  get size(): number {
    return this.#values.size;
  }

  /** `text` with every known secret replaced by {@link MASK}. */
  redact(text: string): string {
    if (this.#values.size === 0) return text;
    // Longest first, so a secret containing another is masked whole.
    this.#pattern ??= new RegExp(
      [...this.#values]
        .sort((a, b) => b.length - a.length)
        .map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|'),
      'g',
    );
    return text.replace(this.#pattern, MASK);
  }
}
