// Work that a connection will need soon, done while it waits for a server instead of after.
// A command like `toolplane tools list` spends tens of milliseconds waiting for a starting
// server's first answer, then pays, on the way to its output, first-use costs that do not depend
// on that answer: the SDK's schemas for the era it ends up speaking, the spawn of a reaper.
// Queued here, they run in that wait, one per turn of the event loop: input is polled between
// two of them, so an answer that arrives is handled after at most the one task running, never
// after the whole queue.

type Task = () => void;

const queue: Task[] = [];
let draining = false;

/**
 * Queues `task` for the next wait for a server (see {@link idleBegins}); `first` puts it ahead of
 * those queued already. A task that throws is dropped: a warm-up only, the work it anticipated
 * meets the same error again, where it is reported.
 */
export function whenIdle(task: Task, options: { readonly first?: boolean } = {}): void {
  if (options.first === true) queue.unshift(task);
  else queue.push(task);
}

/**
 * Says a wait for a server's answer has begun (a request is out): the queued tasks run from the
 * next turn on, one per turn, until the queue is empty.
 */
export function idleBegins(): void {
  if (draining || queue.length === 0) return;
  draining = true;
  setImmediate(runNext);
}

function runNext(): void {
  const task = queue.shift();
  if (task === undefined) {
    draining = false;
    return;
  }
  try {
    task();
  } catch {
    // See whenIdle: nothing to report here.
  }
  setImmediate(runNext);
}
