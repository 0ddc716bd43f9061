// `@toolplane/toolkit/spawn`: starting stdio servers without loading the MCP SDK or the rest of
// the toolkit (see prestarts.ts).
export {
  StdioChild,
  inheritedEnvironment,
  type StdioChildHandlers,
  type StdioSpawnOptions,
} from './stdio-child.js';
export { StdioPrestarts } from './prestarts.js';
