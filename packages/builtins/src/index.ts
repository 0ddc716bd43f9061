export { BUILTIN_NAMES, builtinTools } from './builtins.js';
export type { BuiltinName, BuiltinToolList, BuiltinToolsOptions } from './builtins.js';
export { HeavyPool, PoolBusyError } from './heavy/pool.js';
export type { PoolOptions, PoolSettings } from './heavy/pool.js';
export { BUILTIN_LIMITS } from './limits.js';
