import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createToolkit } from '@toolplane/toolkit';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinTools } from './builtins.js';
import { resolvedLocale } from './cached.js';

// Its own file, so its process measures only its own memory.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const tools = builtinTools({ only: ['time_now', 'text_stats'] });
const toolkit = createToolkit({ tools });
afterAll(async () => {
  await toolkit.close();
  await tools.close();
});

/** The `n`th spelling of `zone` in upper and lower case letters. */
function spelling(zone: string, n: number): string {
  let bit = 0;
  return Array.from(zone)
    .map((c) => (/[a-z]/i.test(c) ? ((n >> bit++) & 1 ? c.toUpperCase() : c.toLowerCase()) : c))
    .join('');
}

describe('caches keyed by caller input', () => {
  it('holds one formatter per zone, however many spellings of it are asked for', async () => {
    await toolkit.callTool('builtin:time_now', { timeZone: 'Europe/Paris' });
    gc();
    const before = process.memoryUsage().rss;
    const zones = new Set<unknown>();
    for (let n = 0; n < 3_000; n++) {
      const now = await toolkit.callTool('builtin:time_now', {
        timeZone: spelling('America/New_York', n),
      });
      zones.add((now.structured as { timeZone: string }).timeZone);
    }
    gc();
    const grown = (process.memoryUsage().rss - before) / 1e6;
    console.log(`3,000 spellings of one zone: RSS +${grown.toFixed(1)} MB`);
    expect([...zones]).toEqual(['America/New_York']);
    // One formatter for each spelling held ~57 KB of native memory each: 89 MB for 3,000.
    expect(grown).toBeLessThan(40);
  });

  it('shares segmenters between locale tags that resolve alike', async () => {
    gc();
    const before = process.memoryUsage().rss;
    for (let n = 0; n < 3_000; n++) {
      const stats = await toolkit.callTool('builtin:text_stats', {
        text: 'Hello there. Bye.',
        locale: `en-x-${n.toString(36)}`,
      });
      expect(stats.structured).toMatchObject({ sentences: 2 });
    }
    gc();
    const grown = (process.memoryUsage().rss - before) / 1e6;
    console.log(`3,000 locale tags: RSS +${grown.toFixed(1)} MB`);
    // The segmenters are keyed by the resolved locale: all of these share those of "en".
    expect(
      new Set(Array.from({ length: 100 }, (_, n) => resolvedLocale(`en-x-${String(n)}`))),
    ).toEqual(new Set(['en']));
  });
});
