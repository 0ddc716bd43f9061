import type { ToolIndex } from '../index-types.js';
import type { QueryCase } from './queries.js';

/** How often the intended tool is among the first `k` results, and the queries where it is not. */
export interface HitRate {
  readonly rate: number;
  readonly hits: number;
  readonly total: number;
  readonly misses: readonly string[];
}

/** Runs every case against `index` and counts the intended tool in the top `k`. */
export async function hitRate(
  index: ToolIndex,
  cases: readonly QueryCase[],
  k: number,
): Promise<HitRate> {
  let hits = 0;
  const misses: string[] = [];
  for (const [query, expected] of cases) {
    const { results } = await index.search(query, { limit: k });
    const rank = results.findIndex((result) => result.id === expected);
    if (rank >= 0) hits++;
    else
      misses.push(
        `${JSON.stringify(query)} → ${results[0]?.id ?? '(none)'} (expected ${expected})`,
      );
  }
  return { rate: hits / cases.length, hits, total: cases.length, misses };
}
