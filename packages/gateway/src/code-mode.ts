import { safely } from './observe/observer.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  CallToolResult,
  InputRequiredResult,
  ServerContext,
  Tool as McpTool,
} from '@modelcontextprotocol/server';
import {
  CODE_MODE_DEFAULTS,
  codeModeTools,
  createCodeMode,
  type CodeMode,
  type CodeModeTool,
} from '@toolplane/codemode';
import { fromError, type AdapterToolResult } from '@toolplane/adapter-kit';
import { ToolError, type ToolErrorCode } from '@toolplane/toolkit';
import { ERROR_META_KEY } from './call-results.js';
import { normalizeMcpResult, type RunResult } from '@toolplane/toolrun';
import type { GatewayHub } from './hub.js';
import type { InputFlow, RunToolCall } from './tool-call.js';
import type { ToolItem } from './items.js';
import type { RequestInput } from './session/round-calls.js';

// `mode: 'code'`: the gateway lists only `search_tools`, `describe_tool` (a tool's TypeScript
// declaration) and `run_code`, whose program calls the tools in @toolplane/codemode's sandbox.
// The program's calls go the way a plain `tools/call` of this session would (the caller's
// scopes, session, upstream requests), and it sees only the tools the caller may see. A 2026
// client's `run_code` is a call with input rounds: what the program's calls ask (an approval, an
// upstream's elicitation or sampling) goes to the client as `input_required` rounds while the run
// waits in its sandbox for the retry, on the instance that runs it (see `HELD_RUN`).

/**
 * Why a waiting run resumes only where it runs: a retry elsewhere gets -32602 saying so. Its
 * sandbox (the program's stack and heap) cannot move, and running the program again from the
 * start would repeat the calls it has made; nor is it ended once its round is sent, as calls that
 * may be replayed are.
 */
const HELD_RUN =
  "a program's run waits in the sandbox of the instance that runs it: its state cannot move, and running it again would repeat the calls it made";

/** What one `tools/call` of a code-mode tool runs with. */
export interface CodeModeCall {
  /** Runs a tool the way a plain `tools/call` of this request would, errors as results. */
  readonly call: RunToolCall;
  readonly signal: AbortSignal;
  /** The exposed names of the tools the caller may see (OAuth scopes); `undefined`: all. */
  readonly visible?: ReadonlySet<string> | undefined;
  /** The session's key: the program's searches, then calls, are learning evidence. */
  readonly sessionKey?: string | undefined;
  /** Who runs it, for each one's share of the sandboxes; `undefined`: not counted. */
  readonly runner?: string | undefined;
  /** A 2026-07-28 request's context: `run_code` then runs as a call with input rounds. */
  readonly rounds?: ServerContext | undefined;
}

interface Scope {
  readonly call: RunToolCall;
  /** The 2026 call's flow: the program's calls ask its client in input rounds. */
  readonly flow?: InputFlow | undefined;
  readonly sessionKey?: string | undefined;
  readonly byId: ReadonlyMap<string, ToolItem>;
}

const scopes = new AsyncLocalStorage<Scope>();
const codeModes = new WeakMap<GatewayHub, { code: CodeMode; tools: CodeModeTool[] }>();

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

/**
 * The error a program sees for a failed call: the toolplane error the call's result carries
 * (`errorResult` puts its code and message under {@link ERROR_META_KEY}), so `e.code` is what
 * the CLI and the library give (`validation`, `tool_changed`, …); else `execution` with the text.
 */
function failureOf(result: CallToolResult, id: string): ToolError {
  const told = result._meta?.[ERROR_META_KEY] as { code?: unknown; message?: unknown } | undefined;
  if (typeof told?.code === 'string' && typeof told.message === 'string') {
    return new ToolError(told.code as ToolErrorCode, told.message, { toolId: id, cause: result });
  }
  return new ToolError('execution', textOf(result), { toolId: id, cause: result });
}

/**
 * The hub's code mode, made on first use: one sandbox pool for every session, over a source
 * that answers, for each run, from the scope of the request that runs it.
 */
function codeModeOf(hub: GatewayHub): { code: CodeMode; tools: CodeModeTool[] } {
  const made = codeModes.get(hub);
  if (made !== undefined) return made;
  const { toolkit } = hub;
  const { index, runner } = toolkit;
  const code = createCodeMode(
    {
      index: {
        listTools: (options) => {
          const page = index.listTools(options);
          const scope = scopes.getStore();
          return { ...page, entries: page.entries.filter((entry) => scope?.byId.has(entry.id)) };
        },
        search: (query, options) => {
          safely(hub.options.observe?.search, 'code');
          const sessionKey = scopes.getStore()?.sessionKey;
          return toolkit.search(
            query,
            sessionKey === undefined ? options : { ...options, sessionKey },
          );
        },
        hasTool: (id) => scopes.getStore()?.byId.has(id) ?? false,
        getTool: (id) => index.getTool(id),
      },
      runner,
      async callTool(id, input = {}, options = {}) {
        const scope = scopes.getStore();
        const item = scope?.byId.get(id);
        if (scope === undefined || item === undefined) {
          throw new ToolError('not_found', `no tool ${JSON.stringify(id)} in code mode`);
        }
        // The run's own signal: it aborts when the run times out or is cancelled, so the calls
        // still in flight are cancelled upstream (`notifications/cancelled`) rather than left running.
        const { flow } = scope;
        const own = options.signal;
        const result = await scope.call(
          item,
          input,
          flow && {
            ...flow,
            signal: own === undefined ? flow.signal : AbortSignal.any([flow.signal, own]),
          },
          own,
        );
        if (result.isError === true) throw failureOf(result, id);
        const backend = index.getTool(id).backend ?? { kind: 'local', local: { name: id } };
        return {
          toolId: id,
          tool: item.tool,
          backend,
          structured: normalizeMcpResult(result),
          mcpResult: result,
        } satisfies RunResult;
      },
    },
    hub.options.codeMode,
  );
  const entry = { code, tools: codeModeTools(code) };
  codeModes.set(hub, entry);
  hub.onDispose(() => void closeCodeMode(hub));
  return entry;
}

/** The three tools code mode lists, in MCP form. */
export function codeModeToolList(hub: GatewayHub): McpTool[] {
  return codeModeOf(hub).tools.map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema,
  }));
}

/** Runs one of the three code-mode tools by name; `undefined` when `name` is none of them. */
export async function runCodeModeTool(
  hub: GatewayHub,
  name: string,
  args: Record<string, unknown>,
  context: CodeModeCall,
): Promise<CallToolResult | InputRequiredResult | undefined> {
  const tool = codeModeOf(hub).tools.find((candidate) => candidate.name === name);
  if (tool === undefined) return undefined;
  const { rounds } = context;
  if (rounds !== undefined && name === 'run_code') {
    return hub.rounds.start(
      (signal, requestInput) =>
        runShared(hub, tool, args, { ...context, signal, rounds: undefined }, name, {
          signal,
          requestInput: duringRun(requestInput),
        }),
      { tool: name, arguments: args, refusal: HELD_RUN },
      rounds,
    );
  }
  return runShared(hub, tool, args, context, name);
}

/**
 * What a program's call asks is never asked "before dispatch" (which a retry elsewhere answers
 * by running the call again from the start): the program may have made other calls already.
 */
function duringRun(requestInput: RequestInput): RequestInput {
  const ask = (...[request, options]: Parameters<RequestInput>) =>
    requestInput(request, { ...options, beforeDispatch: false });
  return Object.assign(ask, { release: requestInput.release });
}

/** Runs one of the three code-mode tools, `run_code` within the runner's share of the sandboxes. */
async function runShared(
  hub: GatewayHub,
  tool: CodeModeTool,
  args: Record<string, unknown>,
  context: CodeModeCall,
  name: string,
  flow?: InputFlow,
): Promise<CallToolResult> {
  const share = name === 'run_code' ? sessionShare(hub, context.runner) : undefined;
  if (share?.full === true) {
    const refusal = new ToolError(
      'rate_limited',
      `this session already runs ${String(share.most)} programs at once, its share of the ${String(share.of)} sandboxes; wait for one to end`,
    );
    return mcpResultOf(fromError(refusal), name);
  }
  share?.claim();
  try {
    return await runOne(hub, tool, args, context, name, flow);
  } finally {
    share?.release();
  }
}

/** Runs one of the three code-mode tools in the caller's scope. */
async function runOne(
  hub: GatewayHub,
  tool: CodeModeTool,
  args: Record<string, unknown>,
  context: CodeModeCall,
  name: string,
  flow: InputFlow | undefined,
): Promise<CallToolResult> {
  const table = await hub.tools();
  const byId = new Map(
    table
      .entries()
      .filter(([exposed]) => context.visible?.has(exposed) ?? true)
      .map(([, item]) => [item.id, item]),
  );
  const result = await scopes.run(
    { call: context.call, flow, byId, sessionKey: context.sessionKey },
    () => tool.run(args, { signal: context.signal }),
  );
  return mcpResultOf(result, name);
}

/**
 * A code-mode tool's answer as the gateway's other tools answer: a failure's toolplane code and
 * message under {@link ERROR_META_KEY} in `_meta` (where clients of the gateway read them), not
 * in the adapters' own `code` member.
 */
function mcpResultOf(result: AdapterToolResult, name: string): CallToolResult {
  const { code, ...rest } = result;
  const answer = rest as CallToolResult;
  if (code === undefined) return answer;
  const first = answer.content[0];
  const text = first?.type === 'text' ? first.text : '';
  const message = text.startsWith(`${code}: `) ? text.slice(code.length + 2) : text;
  return {
    ...answer,
    isError: true,
    _meta: { ...answer._meta, [ERROR_META_KEY]: { code, message, toolId: name } },
  };
}

const running = new WeakMap<GatewayHub, Map<string, number>>();

/**
 * The runs one runner (a session, an OAuth caller) may have at once: half the sandboxes (at
 * least one), so that its programs, however many it sends, leave sandboxes for the others.
 */
function sessionShare(
  hub: GatewayHub,
  sessionKey: string | undefined,
): { full: boolean; most: number; of: number; claim(): void; release(): void } | undefined {
  if (sessionKey === undefined) return undefined;
  let counts = running.get(hub);
  if (counts === undefined) {
    counts = new Map();
    running.set(hub, counts);
  }
  const table = counts;
  const of = hub.options.codeMode?.maxConcurrentRuns ?? CODE_MODE_DEFAULTS.maxConcurrentRuns;
  const most = Math.max(1, Math.floor(of / 2));
  return {
    full: (table.get(sessionKey) ?? 0) >= most,
    most,
    of,
    claim: () => {
      table.set(sessionKey, (table.get(sessionKey) ?? 0) + 1);
    },
    release: () => {
      const left = (table.get(sessionKey) ?? 1) - 1;
      if (left === 0) table.delete(sessionKey);
      else table.set(sessionKey, left);
    },
  };
}

/** Ends the sandbox workers of the hub's code mode, if it made one. */
async function closeCodeMode(hub: GatewayHub): Promise<void> {
  const made = codeModes.get(hub);
  codeModes.delete(hub);
  await made?.code.close();
}
