import { defineTool, ToolError } from '@toolplane/toolkit';
import { z } from 'zod';
import { formatJson } from './heavy/json-format.js';
import type { HeavyPool } from './heavy/pool.js';
import { BUILTIN_LIMITS } from './limits.js';

/** Queries JSON with a JMESPath expression, on `pool`. */
export function jsonQueryTool(pool: HeavyPool) {
  return defineTool({
    name: 'json_query',
    title: 'Query JSON',
    description:
      'Extracts and reshapes data from JSON with a JMESPath expression, e.g. "items[?price > `10`].name | sort(@)". Pass the document as a value in "data" or as text in "json".',
    input: z
      .strictObject({
        expression: z
          .string()
          .min(1)
          .max(
            BUILTIN_LIMITS.expressionLength,
            `at most ${String(BUILTIN_LIMITS.expressionLength)} characters`,
          )
          .describe('A JMESPath expression'),
        data: z.unknown().optional().describe('The JSON document, as a value'),
        json: z
          .string()
          .max(
            BUILTIN_LIMITS.queryInputLength,
            `at most ${String(BUILTIN_LIMITS.queryInputLength)} characters; query a part at a time`,
          )
          .optional()
          .describe('The JSON document, as text'),
      })
      .refine((v) => (v.data === undefined) !== (v.json === undefined), {
        message: 'pass exactly one of "data" and "json"',
        path: ['data'],
      }),
    output: z.object({ result: z.unknown() }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    tags: ['json'],
    // A 300-byte expression can ask for 10^8 values: every query runs on a worker thread, bounded
    // in time and memory, and its result in size.
    run: async ({ expression, data, json }, { signal }) => {
      const outcome = await pool.run(
        {
          kind: 'json_query',
          document: json ?? documentText(data),
          expression,
          maxResultLength: BUILTIN_LIMITS.queryResultLength,
        },
        signal,
      );
      return { result: 'json' in outcome ? (JSON.parse(outcome.json) as unknown) : null };
    },
  });
}

/** Validates and pretty-prints (or minifies) JSON text, optionally with sorted keys, on `pool` when long. */
export function jsonFormatTool(pool: HeavyPool) {
  return defineTool({
    name: 'json_format',
    title: 'Format JSON',
    description: `Checks that text is valid JSON (reporting line and column of the first error) and re-prints it indented (default 2 spaces, 0 to minify), optionally with object keys sorted. Answers of more than ${String(BUILTIN_LIMITS.formatOutputBytes)} bytes are refused.`,
    input: z.strictObject({
      json: z
        .string()
        .max(
          BUILTIN_LIMITS.formatInputLength,
          `at most ${String(BUILTIN_LIMITS.formatInputLength)} characters`,
        )
        .describe('JSON text'),
      indent: z.number().int().min(0).max(8).default(2),
      sortKeys: z.boolean().default(false),
    }),
    output: z.object({ text: z.string(), bytes: z.number() }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    tags: ['json'],
    run: async ({ json, indent, sortKeys }, { signal }) => {
      const options = { indent, sortKeys, maxBytes: BUILTIN_LIMITS.formatOutputBytes };
      // Printing is linear in the answer, which is bounded, but a long text still takes a while.
      const outcome =
        json.length <= BUILTIN_LIMITS.inlineJsonLength
          ? formatJson(json, options)
          : await pool.run({ kind: 'json_format', json, ...options }, signal);
      if (!outcome.ok) throw new ToolError(outcome.code, outcome.message);
      if (!('text' in outcome)) throw new ToolError('internal', 'json_format answered no text');
      return { text: outcome.text, bytes: outcome.bytes };
    },
  });
}

/**
 * `data` as JSON text of at most {@link BUILTIN_LIMITS}' `queryInputLength`, parsed again in the
 * worker (structured cloning overflows on deep nesting).
 */
function documentText(data: unknown): string {
  let text: string;
  try {
    // Undefined for a value JSON has not (none comes through the schema, but a caller in code may).
    const written = JSON.stringify(data) as string | undefined;
    text = written ?? 'null';
  } catch (error) {
    throw new ToolError(
      'resource_exhausted',
      'data is nested too deeply to query: pass it as text in "json", or query a part of it',
      { cause: error },
    );
  }
  const most = BUILTIN_LIMITS.queryInputLength;
  if (text.length > most) {
    throw new ToolError(
      'resource_exhausted',
      `data is ${String(text.length)} characters of JSON, more than the ${String(most)} allowed: query a part at a time`,
    );
  }
  return text;
}
