import { describe, expect, it } from 'vitest';
import { idleBegins, whenIdle } from './idle-work.js';

/** Settles once the idle queue has run `task`'s turn (queued last, it runs last). */
function drained(): Promise<void> {
  return new Promise((resolve) => {
    whenIdle(resolve);
    idleBegins();
  });
}

describe('idle work', () => {
  it('runs nothing until a wait begins, then the queue in order, a first task ahead', async () => {
    const ran: string[] = [];
    whenIdle(() => ran.push('a'));
    whenIdle(() => ran.push('b'));
    whenIdle(() => ran.push('first'), { first: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual([]);
    await drained();
    expect(ran).toEqual(['first', 'a', 'b']);
  });

  it('runs one task per turn, so what else is due runs between two of them', async () => {
    const ran: string[] = [];
    whenIdle(() => {
      ran.push('one');
      // Due on the next turn, as an answer read then would be: before the next task.
      setImmediate(() => ran.push('between'));
    });
    whenIdle(() => ran.push('two'));
    await drained();
    expect(ran).toEqual(['one', 'between', 'two']);
  });

  it('goes on past a task that throws', async () => {
    const ran: string[] = [];
    whenIdle(() => {
      throw new Error('a warm-up that failed');
    });
    whenIdle(() => ran.push('after'));
    await drained();
    expect(ran).toEqual(['after']);
  });
});
