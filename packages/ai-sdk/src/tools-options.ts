import {
  approvalPredicate,
  joinOptionKeys,
  NAME_TOOLS_OPTION_KEYS,
  type CodeModeRunner,
  type NameToolsOptions,
} from '@toolplane/adapter-kit';
import type { ApprovalRules } from '@toolplane/toolrun';
import { optionKeys, type Tool as ToolmodelTool } from '@toolplane/toolmodel';
import { MODEL_OUTPUT_OPTION_KEYS, type ModelOutputOptions } from './results.js';

// The options of `toAiSdkTools`, in a module of their own: search mode takes them too, and
// must not import the module that calls it.

/** Options of {@link toAiSdkTools}. */
export interface AiSdkToolsOptions extends NameToolsOptions, ModelOutputOptions {
  /**
   * `'tools'` (default): one AI SDK tool per toolplane tool. `'search'`: only `search_tools`,
   * `describe_tool` and `call_tool`, so a model finds what it needs in a catalogue too big to
   * list in every request. `'code'`: only `search_tools`, `describe_tool` and
   * `run_code` over `codeMode`, so a model writes one program that calls many tools.
   */
  readonly mode?: 'tools' | 'search' | 'code';
  /**
   * What `mode: 'code'` runs programs on: `createCodeMode(source, { filter, timeoutMs })` of
   * @toolplane/codemode. Its own `filter` decides which tools a program may call (`include` and
   * `exclude` here do not apply); you close it when you are done with it.
   */
  readonly codeMode?: CodeModeRunner;
  /**
   * Surfaces MCP progress as preliminary tool results (default true): `execute` is then an async
   * iterable. Off, `execute` returns one promise, which is a little cheaper.
   */
  readonly progress?: boolean;
  /**
   * Which tools wait for the user's approval before they run (the AI SDK's `needsApproval`): all
   * (`true`), or those a function picks, e.g. `(tool) => tool.annotations?.destructiveHint !==
   * false`, or toolplane's approval policy (`{ destructive: true, tools: ['github:delete_*'] }`,
   * the rules of the gateway's `approval:`). In search mode, `call_tool` asks for approval when
   * the tool it names would.
   */
  readonly needsApproval?: boolean | ((tool: ToolmodelTool, id: string) => boolean) | ApprovalRules;
  /** Sent with every call as its `_meta`. */
  readonly meta?: Record<string, unknown>;
  readonly signal?: AbortSignal;
}

/** Every key of {@link AiSdkToolsOptions}. */
export const AI_SDK_TOOLS_OPTION_KEYS = joinOptionKeys(
  NAME_TOOLS_OPTION_KEYS,
  MODEL_OUTPUT_OPTION_KEYS,
  optionKeys<Omit<AiSdkToolsOptions, keyof NameToolsOptions | keyof ModelOutputOptions>>({
    mode: true,
    codeMode: true,
    progress: true,
    needsApproval: true,
    meta: true,
    signal: true,
  }),
);

/**
 * `needsApproval` as a function or a flag: a policy object becomes its predicate (its globs
 * checked now).
 *
 * @throws {ToolError} `invalid_argument` for a bad pattern in a policy.
 */
export function approvalPick(
  needsApproval: AiSdkToolsOptions['needsApproval'],
): boolean | ((tool: ToolmodelTool, id: string) => boolean) | undefined {
  if (typeof needsApproval === 'object') return approvalPredicate(needsApproval);
  return needsApproval;
}
