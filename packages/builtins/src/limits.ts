/** Bounds of the builtins' input and output: one caller must not hold a shared gateway. */
export const BUILTIN_LIMITS = Object.freeze({
  /** Longest JMESPath expression `json_query` takes. */
  expressionLength: 4_096,
  /** Longest JSON text of a `json_query` document, as `json` or as `data` written out. */
  queryInputLength: 1_000_000,
  /** Longest JSON text of a `json_query` result. */
  queryResultLength: 1_000_000,
  /** Longest JSON text `json_format` takes. */
  formatInputLength: 1_000_000,
  /** Most UTF-8 bytes of the text `json_format` answers with (refused before it is printed). */
  formatOutputBytes: 1_000_000,
  /** JSON texts up to this length are formatted on the calling thread. */
  inlineJsonLength: 16_384,
  /** Longest text `text_stats` counts. */
  textLength: 1_000_000,
  /** Texts up to this length are counted on the calling thread: faster than a worker's round trip. */
  inlineTextLength: 8_192,
  /** Longest time zone name, date text and locale tag the tools take. */
  nameLength: 64,
});
