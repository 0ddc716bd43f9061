import { ToolError } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { createCallFeed, type CallFeedEvent } from './call-feed.js';

const call = (toolId: string) =>
  ({
    toolId,
    args: { secret: 'never recorded' },
    onProgress: undefined,
  }) as unknown as Parameters<ReturnType<ReturnType<typeof createCallFeed>['middleware']>>[0];

describe('createCallFeed', () => {
  it('records calls, progress and outcomes through its middleware, without arguments', async () => {
    let now = 60_000 * 100;
    const feed = createCallFeed({ now: () => now, minutes: 3 });
    const events: CallFeedEvent[] = [];
    feed.subscribe((event) => events.push(event));
    expect(feed.installed).toBe(false);
    const invoke = feed.middleware((c) => {
      c.onProgress?.({ progress: 1, total: 2 });
      now += 40;
      if (c.toolId === 'a:fail') return Promise.reject(new ToolError('execution', 'boom'));
      return Promise.resolve(
        c.toolId === 'a:bad' ? { isError: true, content: [] } : { content: [] },
      );
    });
    expect(feed.installed).toBe(true);
    await invoke(call('a:ok'));
    await invoke(call('a:bad'));
    await expect(invoke(call('a:fail'))).rejects.toMatchObject({ code: 'execution' });
    expect(feed.recent().map((c) => [c.tool, c.outcome, c.durationMs])).toEqual([
      ['a:ok', 'ok', 40],
      ['a:bad', 'is_error', 40],
      ['a:fail', 'execution', 40],
    ]);
    expect(events.map((e) => e.type).slice(0, 3)).toEqual([
      'call_start',
      'call_progress',
      'call_end',
    ]);
    expect(JSON.stringify(events)).not.toContain('never recorded');
    const stats = feed.stats();
    expect(stats.minutes).toHaveLength(3);
    expect(stats.minutes.at(-1)).toMatchObject({ calls: 3, errors: 2, p50: 40, p95: 40 });
    expect(stats.minutes[0]).toMatchObject({ calls: 0, p50: null });
  });

  it('keeps a bounded log and survives a listener that throws', async () => {
    const feed = createCallFeed({ keep: 2 });
    feed.subscribe(() => {
      throw new Error('a closed stream');
    });
    for (const tool of ['x', 'y', 'z']) await feed.observe(tool, () => Promise.resolve(1));
    expect(feed.recent().map((c) => c.tool)).toEqual(['y', 'z']);
    expect(feed.stats().total).toBe(3);
  });
});
