import { describe, expect, it } from 'vitest';
import { quickjsModule } from './quickjs-wasm.js';

describe('quickjsModule', () => {
  it('compiles QuickJS once per process: every worker gets the same module', async () => {
    const [module, again] = await Promise.all([quickjsModule(), quickjsModule()]);
    expect(Object.prototype.toString.call(module)).toBe('[object WebAssembly.Module]');
    expect(again).toBe(module);
    expect(await quickjsModule()).toBe(module);
  });
});
