import { defineTool, ToolError } from '@toolplane/toolkit';
import { z } from 'zod';
import type { HeavyPool } from './heavy/pool.js';
import { countText } from './heavy/text-stats.js';
import { BUILTIN_LIMITS } from './limits.js';

/** Counts characters, words, sentences, lines and paragraphs, and estimates reading time. */
export function textStatsTool(pool: HeavyPool) {
  return defineTool({
    name: 'text_stats',
    title: 'Text statistics',
    description:
      'Counts a text\u2019s characters (as people see them), UTF-8 bytes, words, sentences, lines and paragraphs with Unicode segmentation for a locale, and estimates reading time at 238 words a minute.',
    input: z.strictObject({
      text: z
        .string()
        .max(
          BUILTIN_LIMITS.textLength,
          `at most ${String(BUILTIN_LIMITS.textLength)} characters; count a part at a time`,
        ),
      locale: z
        .string()
        .max(BUILTIN_LIMITS.nameLength)
        .default('en')
        .describe('BCP 47 language tag used to find word boundaries'),
    }),
    output: z.object({
      characters: z.number(),
      bytes: z.number(),
      words: z.number(),
      sentences: z.number(),
      lines: z.number(),
      paragraphs: z.number(),
      readingMinutes: z.number(),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    tags: ['text'],
    run: async ({ text, locale }, { signal }) => {
      if (text.length > BUILTIN_LIMITS.inlineTextLength) {
        const outcome = await pool.run({ kind: 'text_stats', text, locale }, signal);
        if (!('counts' in outcome))
          throw new ToolError('internal', 'text_stats answered no counts');
        return outcome.counts;
      }
      try {
        return countText(text, locale);
      } catch (error) {
        throw new ToolError('invalid_argument', `locale: ${(error as Error).message}`, {
          cause: error,
        });
      }
    },
  });
}
