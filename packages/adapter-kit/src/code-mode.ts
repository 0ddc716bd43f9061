import { ToolError, type Tool } from '@toolplane/toolmodel';
import type { RunMeta } from '@toolplane/toolrun';
import { fromError, jsonResult, type AdapterToolResult, type ContentBlock } from './results.js';

// Code mode's three tools, shared by the gateway and every adapter. The sandbox itself lives in
// @toolplane/codemode, which depends on this package; so the tools take it by its shape
// ({@link CodeModeRunner}), and this package never imports it: the caller makes the code mode
// (`createCodeMode(source, { timeoutMs, filter })`) and owns its worker threads.

/** One line a program wrote with `console.log`, `warn` or `error`. */
export interface CodeModeLog {
  readonly level: string;
  readonly text: string;
}

/**
 * What `mode: 'code'` runs programs on: @toolplane/codemode's `CodeMode`
 * (`createCodeMode(source, options)`), or anything of its shape.
 */
export interface CodeModeRunner {
  /** Tools the program may call that match `query`. */
  search(
    query: string,
    options?: { readonly limit?: number; readonly signal?: AbortSignal },
  ): Promise<readonly unknown[]>;
  /** One tool's TypeScript declaration; throws a `not_found` ToolError for an unknown ID. */
  describe(id: string): string;
  /** Runs a program; throws a ToolError (with the run's `logs` when it has them) when it fails. */
  run(
    program: string,
    options?: { readonly signal?: AbortSignal; readonly meta?: RunMeta },
  ): Promise<{ readonly value: unknown; readonly logs: readonly CodeModeLog[] }>;
}

/** A code-mode tool's definition: its name, what the model reads, and its input schema. */
export interface CodeModeToolDefinition {
  readonly name: 'search_tools' | 'describe_tool' | 'run_code';
  readonly description: string;
  readonly inputSchema: Tool['inputSchema'] & { readonly type: 'object' };
}

/** One of code mode's three tools: its definition and how it runs. */
export interface CodeModeTool extends CodeModeToolDefinition {
  /** Answers as an MCP tool result; bad input and failed programs as `isError` results. */
  run(
    args: Record<string, unknown>,
    options?: { readonly signal?: AbortSignal; readonly meta?: RunMeta },
  ): Promise<AdapterToolResult>;
}

/** The definitions of `search_tools`, `describe_tool` and `run_code`, in that order. */
export const CODE_MODE_TOOLS: readonly [
  CodeModeToolDefinition,
  CodeModeToolDefinition,
  CodeModeToolDefinition,
] = [
  {
    name: 'search_tools',
    description:
      'Searches the tools a run_code program can call, by what they do. Returns their IDs and where the program calls them (e.g. tools.github.create_issue); describe_tool gives their TypeScript declarations.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What the tool should do, in a few words.' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
      },
      required: ['query'],
    },
  },
  {
    name: 'describe_tool',
    description:
      "Returns a tool's TypeScript declaration (arguments, result and documentation), by the ID search_tools gave, for use in a run_code program.",
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
  {
    name: 'run_code',
    description:
      'Runs a JavaScript program (the body of an async function) in a sandbox where each tool is an async function, `await tools.<namespace>.<tool>(args)`, and `search(query)` finds more. Call many tools, filter and combine their results in the program, and `return` only what you need; console.log output comes back too.',
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'The program: the body of an async function.' },
      },
      required: ['code'],
    },
  },
];

/**
 * The code mode an adapter's `mode: 'code'` was given.
 *
 * @throws {ToolError} `invalid_argument` when none was: it says how to make one.
 */
export function requireCodeMode(code: CodeModeRunner | undefined): CodeModeRunner {
  if (code !== undefined) return code;
  throw new ToolError(
    'invalid_argument',
    "mode 'code' needs codeMode: pass createCodeMode(source) from @toolplane/codemode",
  );
}

const text = (value: string): AdapterToolResult => ({ content: [{ type: 'text', text: value }] });

function logsOf(value: unknown): readonly CodeModeLog[] {
  const logs = (value as { logs?: unknown } | null)?.logs;
  return Array.isArray(logs) ? (logs as CodeModeLog[]) : [];
}

function logBlock(logs: readonly CodeModeLog[]): ContentBlock {
  return {
    type: 'text',
    text: `logs:\n${logs.map((entry) => `[${entry.level}] ${entry.text}`).join('\n')}`,
  };
}

function failure(error: unknown): AdapterToolResult {
  const problem = ToolError.isInstance(error)
    ? error
    : new ToolError('internal', error instanceof Error ? error.message : String(error), {
        cause: error,
      });
  const result = fromError(problem);
  const logs = logsOf(problem);
  return logs.length === 0 ? result : { ...result, content: [...result.content, logBlock(logs)] };
}

function stringArg(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== 'string') {
    throw new ToolError('invalid_argument', `${name} must be a string`);
  }
  return value;
}

/**
 * `search_tools`, `describe_tool` and `run_code` over a code mode, as the gateway's and the
 * adapters' `mode: 'code'` expose them: the model searches the tools, reads the TypeScript
 * declaration of those it wants, and writes one program that calls them all. `run_code` answers
 * with the program's value as JSON text (also as structured content when it is an object) and
 * its logs; a failed program with `isError`, its code and message, and the logs it wrote.
 */
export function codeModeTools(code: CodeModeRunner): [CodeModeTool, CodeModeTool, CodeModeTool] {
  const [search, describe, run] = CODE_MODE_TOOLS;
  return [
    {
      ...search,
      run: async (args, options = {}) => {
        try {
          const limit = args.limit;
          const results = await code.search(stringArg(args, 'query'), {
            ...(typeof limit === 'number' ? { limit } : {}),
            ...(options.signal === undefined ? {} : { signal: options.signal }),
          });
          return jsonResult({ results });
        } catch (error) {
          return failure(error);
        }
      },
    },
    {
      ...describe,
      run: (args) => {
        try {
          return Promise.resolve(text(code.describe(stringArg(args, 'id'))));
        } catch (error) {
          return Promise.resolve(failure(error));
        }
      },
    },
    {
      ...run,
      run: async (args, options = {}) => {
        try {
          const result = await code.run(stringArg(args, 'code'), options);
          const value = result.value;
          const content: ContentBlock[] = [
            { type: 'text', text: value === undefined ? 'undefined' : JSON.stringify(value) },
          ];
          if (result.logs.length > 0) content.push(logBlock(result.logs));
          return typeof value === 'object' && value !== null && !Array.isArray(value)
            ? { content, structuredContent: value as Record<string, unknown> }
            : { content };
        } catch (error) {
          return failure(error);
        }
      },
    },
  ];
}
