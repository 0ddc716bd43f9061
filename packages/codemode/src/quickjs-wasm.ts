// QuickJS's WebAssembly: the module, compiled once per process by the main thread and posted to
// every sandbox worker, and the few parts of the `WebAssembly` global code mode uses, typed here
// because the compiler's lib (ES2023, no DOM) has none.
//
// Why one module: V8 shares a module's compiled code among the threads it is posted to. QuickJS's
// functions are compiled when first called, and the hot ones again into optimised code; with one
// module, what the first worker compiled is there for every worker after it. A worker that
// compiled its own copy started cold: its first program took about 60 ms against 7–9 ms for the
// ones after it, and that time counts against the program's `timeoutMs` (bench/RESULTS.md).

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** A compiled `WebAssembly.Module`, opaque here: it is only posted on and instantiated. */
export interface WasmModule {
  readonly [Symbol.toStringTag]: string;
}

/** The parts of the global code mode uses. */
export const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      compile(bytes: Uint8Array): Promise<WasmModule>;
      Memory: new (size: { initial: number; maximum: number }) => unknown;
      RuntimeError: new () => Error;
    };
  }
).WebAssembly;

const WASM_FILE = '@jitl/quickjs-wasmfile-release-sync/wasm';

let compiled: Promise<WasmModule> | undefined;

/**
 * The QuickJS module, compiled asynchronously on the first call and the same object on every
 * call after it. A failure (the package's file missing, say) is not kept: the next worker's
 * start tries again.
 */
export function quickjsModule(): Promise<WasmModule> {
  compiled ??= readFile(createRequire(import.meta.url).resolve(WASM_FILE))
    .then((bytes) => wasm.compile(bytes))
    .catch((error: unknown) => {
      compiled = undefined;
      throw error;
    });
  return compiled;
}
