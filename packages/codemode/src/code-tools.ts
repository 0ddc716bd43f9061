import { fromError, jsonResult, type AdapterToolResult } from '@toolplane/adapter-kit';
import { ToolError, type Tool } from '@toolplane/toolmodel';
import type { CodeMode, CodeRunOptions } from './code-mode.js';
import { CodeModeError } from './errors.js';

/** One of the three tools code mode offers a model: its definition and how it runs. */
export interface CodeModeTool {
  readonly name: 'search_tools' | 'describe_tool' | 'run_code';
  readonly description: string;
  readonly inputSchema: Tool['inputSchema'];
  /** Answers as an MCP tool result; bad input and failed programs as `isError` results. */
  run(args: Record<string, unknown>, options?: CodeRunOptions): Promise<AdapterToolResult>;
}

const text = (value: string): AdapterToolResult => ({ content: [{ type: 'text', text: value }] });

function failure(error: unknown): AdapterToolResult {
  const problem = ToolError.isInstance(error)
    ? error
    : new ToolError('internal', error instanceof Error ? error.message : String(error), {
        cause: error,
      });
  const result = fromError(problem);
  if (!(problem instanceof CodeModeError) || problem.logs.length === 0) return result;
  const logs = problem.logs.map((entry) => `[${entry.level}] ${entry.text}`).join('\n');
  return { ...result, content: [...result.content, { type: 'text', text: `logs:\n${logs}` }] };
}

function stringArg(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== 'string')
    throw new ToolError('invalid_argument', `${name} must be a string`);
  return value;
}

/**
 * `search_tools`, `describe_tool` and `run_code` over a {@link CodeMode}, as the gateway's and
 * the adapters' `mode: 'code'` expose them: the model searches the tools, reads the TypeScript
 * declaration of those it wants, and writes one program that calls them all. `run_code` answers
 * with the program's value as JSON text (its structured content when the value is an object)
 * and its logs; a failed program with `isError`, its code and message, and the logs it wrote.
 */
export function codeModeTools(code: CodeMode): [CodeModeTool, CodeModeTool, CodeModeTool] {
  return [
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
      name: 'describe_tool',
      description:
        "Returns a tool's TypeScript declaration (arguments, result and documentation), by the ID search_tools gave, for use in a run_code program.",
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      run: (args) => {
        try {
          return Promise.resolve(text(code.describe(stringArg(args, 'id'))));
        } catch (error) {
          return Promise.resolve(failure(error));
        }
      },
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
      run: async (args, options = {}) => {
        try {
          const result = await code.run(stringArg(args, 'code'), options);
          const content: AdapterToolResult['content'][number][] = [
            {
              type: 'text',
              text: result.value === undefined ? 'undefined' : JSON.stringify(result.value),
            },
          ];
          if (result.logs.length > 0) {
            const logs = result.logs.map((entry) => `[${entry.level}] ${entry.text}`).join('\n');
            content.push({ type: 'text', text: `logs:\n${logs}` });
          }
          const value = result.value;
          const structured =
            typeof value === 'object' && value !== null && !Array.isArray(value)
              ? { structuredContent: value as Record<string, unknown> }
              : {};
          return { content, ...structured };
        } catch (error) {
          return failure(error);
        }
      },
    },
  ];
}
