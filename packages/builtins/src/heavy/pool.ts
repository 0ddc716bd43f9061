import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ToolError } from '@toolplane/toolkit';
import { Piscina } from 'piscina';
import type { TextCounts } from './text-stats.js';
import type { HeavyOutcome, HeavyTask } from './worker.js';

/** Bounds of the builtins' worker threads. */
export const HEAVY_LIMITS = Object.freeze({
  /** Time one task may take before its thread is ended. */
  timeoutMs: 5_000,
  /** Heap one thread may use before it is ended (an expression that builds 10^8 values). */
  heapMb: 256,
  /** Tasks waiting for a thread before new ones are refused. */
  maxQueue: 64,
});

// Running from source (tests, `pnpm toolplane`), the worker is TypeScript: it needs tsx's loader
// and the source condition; the built package runs plain JavaScript.
const fromSource = import.meta.url.endsWith('.ts');

let pool: Piscina<HeavyTask, HeavyOutcome> | undefined;

function workers(): Piscina<HeavyTask, HeavyOutcome> {
  pool ??= new Piscina({
    filename: fileURLToPath(new URL(`./worker.${fromSource ? 'ts' : 'js'}`, import.meta.url)),
    minThreads: 0,
    maxThreads: Math.max(1, Math.min(2, availableParallelism() - 1)),
    idleTimeout: 30_000,
    maxQueue: HEAVY_LIMITS.maxQueue,
    resourceLimits: { maxOldGenerationSizeMb: HEAVY_LIMITS.heapMb, maxYoungGenerationSizeMb: 32 },
    execArgv: fromSource ? sourceExecArgv() : [],
  });
  return pool;
}

function sourceExecArgv(): string[] {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--conditions=@toolplane/source', '--import', tsx];
}

/**
 * Runs a JMESPath query on a worker thread and answers its result as JSON text.
 *
 * @throws {ToolError} see {@link runHeavy}.
 */
export async function queryOnWorker(
  document: unknown,
  expression: string,
  maxResultLength: number,
  signal?: AbortSignal,
): Promise<string> {
  const outcome = await runHeavy(
    { kind: 'json_query', document, expression, maxResultLength },
    signal,
  );
  return 'json' in outcome ? outcome.json : '';
}

/**
 * Counts a text on a worker thread.
 *
 * @throws {ToolError} see {@link runHeavy}.
 */
export async function countOnWorker(
  text: string,
  locale: string,
  signal?: AbortSignal,
): Promise<TextCounts> {
  const outcome = await runHeavy({ kind: 'text_stats', text, locale }, signal);
  if (!('counts' in outcome)) throw new ToolError('internal', 'text_stats answered no counts');
  return outcome.counts;
}

/**
 * Runs `task` on a worker thread, so that however long or large it grows it holds no session's
 * event loop: past {@link HEAVY_LIMITS} its thread is ended and the call fails with a clear error.
 *
 * @throws {ToolError} `cancelled` when `signal` aborts, `timeout` past the time limit,
 * `invalid_argument` past the memory limit or when the task itself fails (its message),
 * `rate_limited` when too many tasks wait.
 */
async function runHeavy(
  task: HeavyTask,
  signal?: AbortSignal,
): Promise<Extract<HeavyOutcome, { ok: true }>> {
  const timeout = AbortSignal.timeout(HEAVY_LIMITS.timeoutMs);
  let outcome: HeavyOutcome;
  try {
    outcome = await workers().run(task, {
      signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
    });
  } catch (error) {
    throw failure(task.kind, error, signal, timeout);
  }
  if (!outcome.ok) throw new ToolError('invalid_argument', outcome.message);
  return outcome;
}

function failure(
  kind: string,
  error: unknown,
  signal: AbortSignal | undefined,
  timeout: AbortSignal,
): ToolError {
  if (signal?.aborted === true) {
    return new ToolError('cancelled', `${kind} was cancelled`, { cause: error });
  }
  if (timeout.aborted) {
    return new ToolError(
      'timeout',
      `${kind} took longer than ${String(HEAVY_LIMITS.timeoutMs / 1000)} s and was stopped: ask for less`,
      { cause: error },
    );
  }
  const code = (error as { code?: unknown }).code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new ToolError(
      'invalid_argument',
      `${kind} needed more than ${String(HEAVY_LIMITS.heapMb)} MB of memory and was stopped: ask for less`,
      { cause: error },
    );
  }
  if (error instanceof Error && /queue is at limit/i.test(error.message)) {
    return new ToolError('rate_limited', `too many ${kind} calls are waiting; retry shortly`, {
      cause: error,
    });
  }
  return new ToolError(
    'internal',
    `${kind} failed: ${error instanceof Error ? error.message : String(error)}`,
    {
      cause: error,
    },
  );
}

/** Ends the worker threads (at once: the tasks still running fail). */
export async function closeHeavyWorkers(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.destroy();
}
