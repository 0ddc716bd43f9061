import {
  codeModeTools as kitCodeModeTools,
  type CodeModeTool as KitCodeModeTool,
} from '@toolplane/adapter-kit';
import type { CodeMode } from './types.js';

// The three tools live in adapter-kit, which the gateway and every adapter share; this package
// keeps its own names for them, as it published them first.

/** One of the three tools code mode offers a model: its definition and how it runs. */
export type CodeModeTool = KitCodeModeTool;

/**
 * `search_tools`, `describe_tool` and `run_code` over a {@link CodeMode}, as the gateway's and
 * the adapters' `mode: 'code'` expose them: the model searches the tools, reads the TypeScript
 * declaration of those it wants, and writes one program that calls them all. `run_code` answers
 * with the program's value as JSON text (its structured content when the value is an object)
 * and its logs; a failed program with `isError`, its code and message, and the logs it wrote.
 */
export function codeModeTools(code: CodeMode): [CodeModeTool, CodeModeTool, CodeModeTool] {
  return kitCodeModeTools(code);
}
