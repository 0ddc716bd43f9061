import {
  joinOptionKeys,
  NAME_TOOLS_OPTION_KEYS,
  type CodeModeRunner,
  type NameToolsOptions,
} from '@toolplane/adapter-kit';
import { optionKeys } from '@toolplane/toolmodel';
import { MESSAGE_CONTENT_OPTION_KEYS, type MessageContentOptions } from './results.js';

// The options of `toLangChainTools`, in a module of their own: search mode takes them too, and
// must not import the module that calls it.

/** Options of {@link toLangChainTools}. */
export interface LangChainToolsOptions extends NameToolsOptions, MessageContentOptions {
  /**
   * `'tools'` (default): one LangChain tool per toolplane tool. `'search'`: only
   * `search_tools`, `describe_tool` and `call_tool`, so a model finds what it needs in a
   * catalogue too big to list in every request. `'code'`: only `search_tools`, `describe_tool` and
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
   * A failed call is a `ToolMessage` with `status: 'error'` that the model reads (default), or,
   * with `true`, a thrown `ToolError` for an agent's own error handling (LangGraph's `ToolNode`,
   * middleware). A cancelled call is always thrown.
   */
  readonly throwOnError?: boolean;
  /** Sent with every call as its `_meta`. */
  readonly meta?: Record<string, unknown>;
  /** Cancels the listing. */
  readonly signal?: AbortSignal;
}

/** Every key of {@link LangChainToolsOptions}. */
export const LANGCHAIN_TOOLS_OPTION_KEYS = joinOptionKeys(
  NAME_TOOLS_OPTION_KEYS,
  MESSAGE_CONTENT_OPTION_KEYS,
  optionKeys<Omit<LangChainToolsOptions, keyof NameToolsOptions | keyof MessageContentOptions>>({
    mode: true,
    codeMode: true,
    throwOnError: true,
    meta: true,
    signal: true,
  }),
);
