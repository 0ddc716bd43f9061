import { checkRunOptions, checkSearchOptions, CODE_MODE_OPTION_KEYS } from './call-options.js';
import { AsyncResource } from 'node:async_hooks';
import {
  asToolError,
  callThrough,
  listAll,
  searchTools,
  type ToolFilter,
  type ToolSource,
} from '@toolplane/adapter-kit';
import {
  countOr,
  isPlainObject,
  MAX_TIMER_MS,
  refuseUnknownOptions,
  ToolError,
} from '@toolplane/toolmodel';
import { CallGate } from './call-gate.js';
import { declarationsOf } from './declarations.js';
import { CodeModeError, type CallStats } from './errors.js';
import { execute, type CallAnswer, type SandboxCall } from './execute.js';
import { apiTools, missingToolHint } from './names.js';
import { unfenced } from './fence.js';
import { typeScriptHint } from './typescript-hint.js';
import { SandboxPool } from './pool.js';
import { unawaitedNote } from './unawaited.js';
import type { ApiTool, SandboxLimits } from './protocol.js';
import type {
  CodeMode,
  CodeModeFilter,
  CodeModeOptions,
  CodeRunOptions,
  CodeRunResult,
  FoundTool,
} from './types.js';

export type * from './types.js';

/** The defaults of {@link CodeModeOptions}. */
export const CODE_MODE_DEFAULTS = {
  timeoutMs: 30_000,
  memoryLimitBytes: 64 << 20,
  maxStackBytes: 512 << 10,
  maxToolCalls: 1_000,
  maxSearches: 100,
  maxConcurrentCalls: 8,
  maxLogBytes: 64 << 10,
  maxResultBytes: 1 << 20,
  maxConcurrentRuns: 4,
} as const;

/**
 * The most `maxStackBytes` may be. QuickJS checks its stack against the bound, but the stack
 * itself is the WebAssembly build's own (5 MiB): a bound past it is never reached, and a deep
 * recursion runs off the end of that stack into the engine's memory instead.
 */
const MAX_STACK_BYTES = 4 << 20;

function toolFilter(filter: CodeModeFilter | undefined): ToolFilter {
  if (filter === undefined) return {};
  const { namespaces, tags, tools } = filter;
  return {
    include: {
      ...(namespaces === undefined ? {} : { namespaces }),
      ...(tags === undefined ? {} : { tags }),
      ...(tools === undefined ? {} : { ids: tools }),
    },
  };
}

// What QuickJS says of `tools.ns.missing()` and `tools.missing.name()`.
const NO_SUCH_MEMBER = /^TypeError: (?:not a function|cannot read property '[^']*' of undefined)/;

/** Counts the calls of one run. */
class Stats {
  total = 0;
  errors = 0;
  searches = 0;
  readonly byTool: Record<string, { calls: number; errors: number; ms: number }> = {};

  add(id: string, ms: number, failed: boolean): void {
    const entry = (this.byTool[id] ??= { calls: 0, errors: 0, ms: 0 });
    entry.calls++;
    entry.ms += ms;
    this.total++;
    if (failed) {
      entry.errors++;
      this.errors++;
    }
  }

  snapshot(): CallStats {
    const byTool: CallStats['byTool'] = Object.fromEntries(
      Object.entries(this.byTool).map(([id, entry]) => [
        id,
        { ...entry, ms: Math.round(entry.ms * 1000) / 1000 },
      ]),
    );
    return { total: this.total, errors: this.errors, searches: this.searches, byTool };
  }
}

function failed(error: unknown, id: string): CallAnswer {
  const problem = asToolError(error, id);
  return { ok: false, json: JSON.stringify({ message: problem.message, code: problem.code }) };
}

/**
 * Tools of `source` (a toolkit, or any adapter-kit `ToolSource`) as a typed API inside a
 * WebAssembly sandbox (QuickJS): a program calls `await tools.<namespace>.<tool>(args)`, and every
 * call goes through the source's own path (validation, middleware, tracing, the caller's session,
 * cancellation). Nothing of the host is reachable from the program; values cross as JSON.
 *
 * @throws {ToolError} `invalid_argument` for an unknown option, a bound that is not a positive
 * integer, a `maxStackBytes` past 4 MiB or a `timeoutMs` past 2,147,483,647 (about 24.8 days).
 */
export function createCodeMode(source: ToolSource, options: CodeModeOptions = {}): CodeMode {
  refuseUnknownOptions(options, CODE_MODE_OPTION_KEYS, 'createCodeMode', {
    instead: {
      timeout: 'did you mean "timeoutMs"?',
      memoryLimit: 'did you mean "memoryLimitBytes"?',
    },
  });
  const defaults = CODE_MODE_DEFAULTS;
  const timeoutMs = countOr(options.timeoutMs, defaults.timeoutMs, 'timeoutMs', {
    max: MAX_TIMER_MS,
  });
  const limits: SandboxLimits = {
    memoryLimitBytes: countOr(
      options.memoryLimitBytes,
      defaults.memoryLimitBytes,
      'memoryLimitBytes',
    ),
    maxStackBytes: countOr(options.maxStackBytes, defaults.maxStackBytes, 'maxStackBytes', {
      max: MAX_STACK_BYTES,
    }),
    maxToolCalls: countOr(options.maxToolCalls, defaults.maxToolCalls, 'maxToolCalls'),
    maxSearches: countOr(options.maxSearches, defaults.maxSearches, 'maxSearches'),
    maxLogBytes: countOr(options.maxLogBytes, defaults.maxLogBytes, 'maxLogBytes'),
    maxResultBytes: countOr(options.maxResultBytes, defaults.maxResultBytes, 'maxResultBytes'),
  };
  const maxConcurrentCalls = countOr(
    options.maxConcurrentCalls,
    defaults.maxConcurrentCalls,
    'maxConcurrentCalls',
  );
  const maxConcurrentRuns = countOr(
    options.maxConcurrentRuns,
    defaults.maxConcurrentRuns,
    'maxConcurrentRuns',
  );
  const pool = new SandboxPool(maxConcurrentRuns, limits);
  const filter = toolFilter(options.filter);

  const exposed = (): { api: ApiTool[]; entries: ReturnType<typeof listAll> } => {
    const entries = listAll(source.index, filter);
    return { api: apiTools(entries), entries };
  };

  const declared = (only?: string): ReturnType<typeof declarationsOf> => {
    const { api, entries } = exposed();
    const byId = new Map(entries.map((entry) => [entry.id, entry.tool]));
    // A model may name a tool by the call path search gave it (`tools.ns.name`) instead of its ID.
    const called = (item: ApiTool): boolean =>
      only === `tools.${item.namespace}.${item.name}` || only === `${item.namespace}.${item.name}`;
    const isId = only === undefined || api.some((item) => item.id === only);
    const tools = api
      .filter((item) => only === undefined || (isId ? item.id === only : called(item)))
      .map((item) => ({
        api: item,
        tool: byId.get(item.id) as NonNullable<ReturnType<typeof byId.get>>,
      }));
    if (only !== undefined && tools.length === 0) {
      throw new ToolError(
        'not_found',
        `no tool ${JSON.stringify(only)} in code mode; search finds IDs`,
      );
    }
    return declarationsOf(tools, { preamble: only === undefined });
  };

  const pathsOf = (api: readonly ApiTool[]): Map<string, string> =>
    new Map(api.map((item) => [item.id, `tools.${item.namespace}.${item.name}`]));

  async function find(
    query: string,
    paths: ReadonlyMap<string, string>,
    options: { readonly limit?: unknown; readonly signal?: AbortSignal | undefined },
  ): Promise<FoundTool[]> {
    const page = await searchTools(
      source,
      filter,
      { query, ...(options.limit === undefined ? {} : { limit: options.limit }) },
      { signal: options.signal },
    );
    const found: FoundTool[] = [];
    for (const result of page.results as Omit<FoundTool, 'call'>[]) {
      const path = paths.get(result.id);
      if (path !== undefined) found.push({ ...result, call: path });
    }
    return found;
  }

  async function run(sent: string, runOptions: CodeRunOptions = {}): Promise<CodeRunResult> {
    if (typeof sent !== 'string')
      throw new CodeModeError('invalid_argument', 'the program must be text');
    checkRunOptions(runOptions);
    const program = unfenced(sent);
    const { signal, meta, sessionKey } = runOptions;
    if (signal?.aborted === true)
      throw new CodeModeError('cancelled', 'the run was cancelled before it started');
    const { api } = exposed();
    const paths = pathsOf(api);
    const stats = new Stats();
    const gate = new CallGate(maxConcurrentCalls);
    // Tool calls arrive from the worker's message events; they run in the caller's async
    // context, so that the toolkit sees the caller's session and trace.
    const context = new AsyncResource('toolplane.codemode.run');
    const callOptions = (callSignal: AbortSignal): Record<string, unknown> => ({
      signal: callSignal,
      ...(meta === undefined ? {} : { meta }),
      ...(sessionKey === undefined ? {} : { sessionKey }),
    });

    const unanswered = new Map<number, string>();
    const onCall = async (call: SandboxCall, callSignal: AbortSignal): Promise<CallAnswer> => {
      let payload: unknown;
      try {
        payload = JSON.parse(call.json);
      } catch {
        return failed(new ToolError('invalid_argument', 'arguments are not JSON'), call.target);
      }
      if (call.op === 'search') {
        stats.searches++;
        try {
          const limit = isPlainObject(payload) ? payload.limit : undefined;
          const found = await context.runInAsyncScope(() =>
            find(call.target, paths, { signal: callSignal, limit }),
          );
          return { ok: true, json: JSON.stringify(found) };
        } catch (error) {
          return failed(error, call.target);
        }
      }
      // Until it answers: a call the program never awaited is still here when the run ends.
      unanswered.set(call.call, call.target);
      try {
        await gate.enter(callSignal);
      } catch (error) {
        unanswered.delete(call.call);
        return failed(error, call.target);
      }
      const started = performance.now();
      try {
        if (!paths.has(call.target))
          throw new ToolError('not_found', `no tool ${JSON.stringify(call.target)} in code mode`);
        if (!isPlainObject(payload))
          throw new ToolError('invalid_argument', 'arguments must be an object', {
            toolId: call.target,
          });
        const result = await context.runInAsyncScope(() =>
          callThrough(source, call.target, payload, callOptions(callSignal)),
        );
        const json = JSON.stringify(result.structured ?? null);
        stats.add(call.target, performance.now() - started, false);
        return { ok: true, json };
      } catch (error) {
        stats.add(call.target, performance.now() - started, true);
        return failed(error, call.target);
      } finally {
        gate.leave();
        unanswered.delete(call.call);
      }
    };

    let ended: Awaited<ReturnType<typeof execute>>;
    try {
      ended = await execute(pool, { program, tools: api, limits, timeoutMs, signal, onCall });
    } catch (error) {
      // No worker for the run: cancelled while it queued, or code mode closed.
      const problem = ToolError.isInstance(error)
        ? error
        : new ToolError('internal', error instanceof Error ? error.message : String(error));
      throw new CodeModeError(problem.code, problem.message, {
        cause: error,
        calls: stats.snapshot(),
      });
    }
    const calls = stats.snapshot();
    const { outcome } = ended;
    if (outcome.ok) {
      const note = unawaitedNote([...unanswered.values(), ...(ended.unsent ?? [])], paths);
      return {
        value: outcome.json === undefined ? undefined : JSON.parse(outcome.json),
        logs: note === undefined ? ended.logs : [...ended.logs, note],
        calls,
      };
    }
    const { logs } = ended;
    switch (outcome.code) {
      case 'timeout': {
        // A run's time counts from the call: say how much of it went waiting for a sandbox.
        const waited = Math.round(ended.waitedMs);
        const busy =
          waited < 1
            ? ''
            : waited >= timeoutMs
              ? ` waiting for a free sandbox (all ${String(maxConcurrentRuns)} busy)`
              : `, ${String(waited)} ms of them waiting for a free sandbox`;
        throw new CodeModeError(
          'timeout',
          `the program ran past its ${String(timeoutMs)} ms${busy}`,
          { logs, calls },
        );
      }
      case 'cancelled':
      case 'stopped':
        throw new CodeModeError(
          'cancelled',
          'closed' in outcome
            ? 'the run was cancelled: code mode was closed while it ran'
            : 'the run was cancelled',
          { logs, calls },
        );
      default: {
        const { code, line, column } = outcome;
        let { message } = outcome;
        if (code === 'execution' && line !== undefined && NO_SUCH_MEMBER.test(message)) {
          const hint = missingToolHint(program.split('\n')[line - 1] ?? '', api);
          if (hint !== undefined) message = `${message}: ${hint}`;
        }
        if (code === 'invalid_argument' && line !== undefined) {
          const hint = typeScriptHint(program.split('\n')[line - 1] ?? '', column);
          if (hint !== undefined) message = `${message}: ${hint}`;
        }
        throw new CodeModeError(code, message, {
          logs,
          calls,
          ...(line === undefined ? {} : { line }),
          ...(column === undefined ? {} : { column }),
        });
      }
    }
  }

  return {
    declarations: () => declared(),
    describe: (id) => declared(id),
    tools: () => exposed().api,
    search: (query, options = {}) =>
      Promise.resolve().then(() => {
        checkSearchOptions(options);
        return find(query, pathsOf(exposed().api), options);
      }),
    run,
    close: () => pool.close(),
  };
}
