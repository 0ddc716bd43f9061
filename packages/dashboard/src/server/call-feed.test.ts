import { createToolkit, defineTool, ToolError, type ApprovalAnswer } from '@toolplane/toolkit';
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

  it('shows a call held for approval as waiting, then its end, and a refused one by its code', async () => {
    const feed = createCallFeed();
    const events: CallFeedEvent[] = [];
    feed.subscribe((event) => events.push(event));
    const answers: ((answer: ApprovalAnswer) => void)[] = [];
    let wake = (): void => undefined;
    const asked = () => new Promise<void>((resolve) => (wake = resolve));
    const toolkit = createToolkit({
      tools: [
        defineTool({
          name: 'wipe',
          description: 'Wipes a disk.',
          input: { type: 'object' },
          annotations: { destructiveHint: true },
          run: () => 'wiped',
        }),
      ],
      approval: {
        ask: () =>
          new Promise<ApprovalAnswer>((answer) => {
            answers.push(answer);
            wake();
          }),
      },
      observers: [feed.middleware],
    });
    let asking = asked();
    const held = toolkit.callTool('builtin:wipe', {});
    // Asked: the live log says so before anyone answers.
    await asking;
    expect(feed.recent()).toEqual([expect.objectContaining({ waiting: 'approval' })]);
    expect(feed.recent()[0]?.outcome).toBeUndefined();
    answers[0]?.('accept');
    await held;
    asking = asked();
    const refused = toolkit.callTool('builtin:wipe', {});
    await asking;
    answers[1]?.('decline');
    await expect(refused).rejects.toMatchObject({ code: 'approval_denied' });
    expect(events.map((e) => [e.type, e.call.id, e.call.waiting, e.call.outcome])).toEqual([
      ['call_start', 1, undefined, undefined],
      ['call_progress', 1, 'approval', undefined],
      ['call_progress', 1, undefined, undefined],
      ['call_end', 1, undefined, 'ok'],
      ['call_start', 2, undefined, undefined],
      ['call_progress', 2, 'approval', undefined],
      ['call_end', 2, undefined, 'approval_denied'],
    ]);
    expect(feed.stats()).toMatchObject({ total: 2, errors: 1 });
  });
});
