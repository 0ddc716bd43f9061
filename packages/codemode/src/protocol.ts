// The messages between a code-mode run on the main thread and the worker thread that holds its
// QuickJS sandbox. Everything that crosses is plain data: program text, JSON text and numbers,
// but for the compiled QuickJS module each new worker gets first (quickjs-wasm.ts). A run starts
// with a `run` message on the worker's own port; everything after it (calls, answers, the end)
// goes over a dedicated channel that the worker reads without its event loop (see channel.ts),
// and a stop is a write to the shared control block.

import type { WasmModule } from './quickjs-wasm.js';

/** The bounds one run is held to inside the worker. */
export interface SandboxLimits {
  readonly memoryLimitBytes: number;
  readonly maxStackBytes: number;
  readonly maxToolCalls: number;
  readonly maxSearches: number;
  readonly maxLogBytes: number;
  readonly maxResultBytes: number;
}

/** One tool as the program sees it: `tools[namespace][name](args)` calls the tool `id`. */
export interface ApiTool {
  readonly namespace: string;
  readonly name: string;
  readonly id: string;
}

/** One line the program wrote with `console.log`, `console.warn` or `console.error`. */
export interface LogEntry {
  readonly level: 'log' | 'warn' | 'error';
  readonly text: string;
}

/** Why the worker stopped a run early; written into the control block's `STOP` (0: keep running). */
export const STOP_TIMEOUT = 1;
export const STOP_CANCELLED = 2;

/** A tool call or search the program made, which the main thread answers. */
export interface HostCall {
  readonly call: number;
  readonly op: 'tool' | 'search';
  /** The tool's canonical ID (`tool`), or the query (`search`). */
  readonly target: string;
  /** The arguments (`tool`) or the options (`search`), as JSON text. */
  readonly json: string;
}

/**
 * Main thread → worker: `engine` (the worker's first message, once) and `run` on the worker's
 * port, `settle` on the channel.
 */
export type HostMessage =
  | { readonly kind: 'engine'; readonly module: WasmModule }
  | {
      readonly kind: 'run';
      readonly run: number;
      readonly program: string;
      readonly tools: readonly ApiTool[];
      readonly limits: SandboxLimits;
      /**
       * The most (ms) the worker may spin for one wait's answers before it sleeps: 0 on a machine
       * without a spare core, a short spin while other runs hold the other cores (channel.ts).
       */
      readonly spinMs: number;
    }
  | {
      readonly kind: 'settle';
      readonly run: number;
      /** How many calls the batch answers. */
      readonly count: number;
      /**
       * The answers that are ready, in one message (one wake-up of the worker for all), as the
       * JSON text the prelude's `settle` parses: `[[call, 1, value], [call, 0, { message, code }]]`.
       * Made as text on the main thread, so that neither thread copies objects for it.
       */
      readonly batch: string;
    };

/** What a finished run reports: its value as JSON text (absent for `undefined`), or its failure. */
export type Outcome =
  | { readonly ok: true; readonly json: string | undefined }
  | {
      readonly ok: false;
      readonly code:
        'invalid_argument' | 'execution' | 'resource_exhausted' | 'stopped' | 'internal';
      readonly message: string;
      readonly line?: number;
      readonly column?: number;
    };

/** Worker → main thread: `ready` on the worker's port, the rest on the channel. */
export type WorkerMessage =
  | { readonly kind: 'ready'; readonly run: 0 }
  | {
      readonly kind: 'calls';
      readonly run: number;
      /**
       * Every call the program made since the last message, in order (one wake-up for all), as
       * the prelude's `drain` packed them: text rather than objects, so that neither thread
       * copies objects for it (`unpackCalls` reads it).
       */
      readonly calls: string;
    }
  | {
      readonly kind: 'done';
      readonly run: number;
      readonly outcome: Outcome;
      readonly logs: readonly LogEntry[];
      /** IDs of the tool calls the program made that were never sent, as the run ended first. */
      readonly unsent?: readonly string[];
      /** The worker's engine failed (engine.ts): end this worker rather than run on it again. */
      readonly retire?: true;
    };
