export { parseArgs } from './args.js';
export type { ParseArgsOptions } from './args.js';
export { builtinTools } from '@toolplane/builtins';
export { runCli } from './cli.js';
export type { RunCliOptions } from './cli.js';
export {
  CONFIG_FILE_NAMES,
  DEFAULT_HTTP_PORT,
  DEFAULT_STORE_PATH,
  emptyConfig,
  findConfigFile,
  isAllowed,
  loadConfig,
  parseConfig,
} from './config.js';
export type {
  CliConfig,
  ConnectorConfig,
  LoadConfigOptions,
  ParseConfigOptions,
  StoreConfig,
} from './config.js';
export { openStore, openToolkit } from './open.js';
export type { OpenToolkit, OpenToolkitOptions } from './open.js';
export { describeError, exitCode, formatDuration, Output } from './output.js';
export type { OutputOptions, OutputStream, Spinner } from './output.js';
export { MASK, Secrets } from './secrets.js';
