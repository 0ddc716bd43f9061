// A worker thread's entry (run by piscina): the builtins' CPU-heavy work, away from the event
// loop that serves every session. Failures are answered, not thrown, so their words survive the
// trip back to the main thread.
import type { MessagePort } from 'node:worker_threads';
import { formatJson, type FormatOptions, type FormatOutcome } from './json-format.js';
import { queryJson, type QueryOutcome } from './json-query.js';
import { countText, type TextCounts } from './text-stats.js';

/** One piece of work for the worker. */
export type HeavyTask =
  | {
      readonly kind: 'json_query';
      /** The document as JSON text: a string crosses to the worker whatever its nesting. */
      readonly document: string;
      readonly expression: string;
      readonly maxResultLength: number;
    }
  | ({ readonly kind: 'json_format'; readonly json: string } & FormatOptions)
  | { readonly kind: 'text_stats'; readonly text: string; readonly locale: string };

/** A task as the pool hands it over: with the port the worker says it has begun on. */
export type StartedTask = HeavyTask & { readonly started: MessagePort };

/** What the worker answers for a {@link HeavyTask}. */
export type HeavyOutcome =
  | QueryOutcome
  | FormatOutcome
  | { readonly ok: true; readonly counts: TextCounts }
  | {
      readonly ok: false;
      readonly code?: 'invalid_argument' | 'resource_exhausted';
      readonly message: string;
    };

export default function run({ started, ...task }: StartedTask): HeavyOutcome {
  // The pool's time limit starts now: the thread and these modules are up.
  started.postMessage(null);
  if (task.kind === 'json_query') {
    return queryJson(task.document, task.expression, task.maxResultLength);
  }
  if (task.kind === 'json_format') return formatJson(task.json, task);
  try {
    return { ok: true, counts: countText(task.text, task.locale) };
  } catch (error) {
    return { ok: false, message: `locale: ${(error as Error).message}` };
  }
}
