// The worker's QuickJS engine: the WebAssembly module the main thread compiled, instantiated once
// per worker in memory of a fixed size, the runtime-and-context pairs made from it, and what the
// worker does once the module itself has failed (rather than a program inside it).

import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type CustomizeVariantOptions,
  type QuickJSContext,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import type { Outcome } from './protocol.js';
import { wasm, type WasmModule } from './quickjs-wasm.js';

// The variant's types describe its CommonJS build, whose default export TypeScript sees as the
// whole module; the ESM build imported here exports the variant itself.
const variant = RELEASE_SYNC as unknown as QuickJSSyncVariant;

// QuickJS's own accounting of its heap misses memory that grows by realloc (array storage, for
// one), so the WebAssembly memory itself is capped too: at the run's bound plus room for the
// engine's own stack and data. Past it, allocations fail and QuickJS throws "out of memory".
const PAGE = 64 << 10;
const ENGINE_BYTES = 24 << 20;

/** A runtime and its one context, made before the run that will use them. */
export interface Sandbox {
  readonly runtime: QuickJSRuntime;
  readonly vm: QuickJSContext;
}

type Failure = Extract<Outcome, { ok: false }>;

/** The Emscripten module's allocator, which quickjs-emscripten keeps as `module` (not typed). */
interface Allocator {
  _malloc(bytes: number): number;
  _free(at: number): void;
}

// Emscripten writes its abort message ("Aborted(Assertion failed: ...)") to stderr before it
// throws; the worker reports the failure itself, in words of its own. (The loader's options go to
// Emscripten as they are; their type names only those quickjs-emscripten reads itself.)
const quiet = { printErr: () => undefined } as NonNullable<
  CustomizeVariantOptions['emscriptenModule']
>;

/**
 * The QuickJS module of one worker. Once a call into it has thrown (rather than returned a
 * program's error as a value), the WebAssembly code stopped part-way and its memory may hold
 * half-made state: the engine is `broken`, is never called again, and the worker is retired.
 */
export class Engine {
  broken = false;
  // Made once a run has ended, while the worker would otherwise idle, so that the next run does
  // not wait for it (most of a trivial run's cost). It is never used twice: reusing a runtime
  // with a fresh context measured slower than a new runtime (the freed context's cyclic garbage
  // is left for later collections to sweep), and a new one shares nothing with an earlier run.
  private spare: Sandbox | undefined;

  private constructor(private readonly quickjs: QuickJSWASMModule) {}

  /**
   * Instantiates `module` (quickjs-wasm.ts) in a WebAssembly memory of `memoryLimitBytes` and the
   * engine's room, all of it from the start. A memory that grows would detach the views
   * quickjs-emscripten keeps of it: `executePendingJobs` reads the context of the last job
   * through one made before the jobs ran, and after a job that grew the memory it reads nothing,
   * makes a whole new context for that nothing and never frees it, and QuickJS aborts on the leak
   * when the runtime is disposed. Pages never touched take no memory of the machine.
   */
  static async load(module: WasmModule, memoryLimitBytes: number): Promise<Engine> {
    const pages = Math.ceil((memoryLimitBytes + ENGINE_BYTES) / PAGE);
    const wasmMemory = new wasm.Memory({ initial: pages, maximum: pages });
    const quickjs = await newQuickJSWASMModuleFromVariant(
      newVariant(variant, { wasmModule: module, wasmMemory, emscriptenModule: quiet }),
    );
    return new Engine(quickjs);
  }

  /**
   * Whether `bytes` can be allocated in the engine's memory now. quickjs-emscripten copies a
   * string into that memory before QuickJS reads it (`newString`, `evalCode`) and does not check
   * the allocation: when it fails, the string is written from address 0 on, over the engine's
   * own data, and the engine faults later (or, for a short string, goes on corrupted). So every
   * large text is tried here first; the block freed is the one the copy gets straight after.
   */
  fits(bytes: number): boolean {
    const allocator = (this.quickjs as unknown as { module?: Partial<Allocator> }).module;
    const { _malloc: malloc, _free: free } = allocator ?? {};
    if (malloc === undefined || free === undefined) return true;
    const at = malloc(bytes);
    if (at === 0) return false;
    free(at);
    return true;
  }

  /** The spare sandbox when there is one, else a new one. */
  take(): Sandbox {
    const taken = this.spare ?? this.newSandbox();
    this.spare = undefined;
    return taken;
  }

  /** Makes the next run's sandbox ahead of it, unless the engine is broken. */
  prepare(): void {
    if (this.broken || this.spare !== undefined) return;
    try {
      this.spare = this.newSandbox();
    } catch (error) {
      // The next run makes its own, and reports what fails then.
      this.failed(error);
    }
  }

  /**
   * A call into the engine threw `error`: marks the engine broken, and says what the run it
   * belonged to ended with. V8's own stack running out inside the engine is the program's deep
   * nesting; anything else is a failure of the engine, reported without its raw text.
   */
  failed(error: unknown): Failure {
    this.broken = true;
    if (error instanceof RangeError) {
      return {
        ok: false,
        code: 'resource_exhausted',
        message: 'stack overflow: the program nests deeper than the sandbox allows',
      };
    }
    if (error instanceof wasm.RuntimeError) {
      return {
        ok: false,
        code: 'internal',
        message: 'the sandbox engine (QuickJS) failed; its worker is replaced',
      };
    }
    return {
      ok: false,
      code: 'internal',
      message: `the sandbox failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }

  private newSandbox(): Sandbox {
    const runtime = this.quickjs.newRuntime();
    // No module is ever loaded: `import('node:fs')` inside the program rejects.
    runtime.setModuleLoader((name) => ({
      error: new Error(`module "${name}" cannot be loaded in code mode; use tools.* instead`),
    }));
    return { runtime, vm: runtime.newContext() };
  }
}
