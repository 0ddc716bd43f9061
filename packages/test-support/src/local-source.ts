import { createIndex, type ToolIndex } from '@toolplane/toolindex';
import type { Tool } from '@toolplane/toolmodel';
import {
  createLocalRegistry,
  createRunner,
  type LocalHandler,
  type Runner,
} from '@toolplane/toolrun';

/**
 * A source of local tools, each run by its handler: an index and a runner over it, what an
 * adapter takes when it is given no toolkit (adapter-kit's `ToolSource`). Handlers are registered as `h0`, `h1`, … in `tools`' order.
 */
export function localSource(tools: readonly { tool: Tool; run: LocalHandler }[]): {
  index: ToolIndex;
  runner: Runner;
} {
  const index = createIndex();
  const local = createLocalRegistry();
  for (const [i, { tool, run }] of tools.entries()) {
    local.register(`h${String(i)}`, run);
    index.registerTool(tool, { kind: 'local', local: { name: `h${String(i)}` } });
  }
  return { index, runner: createRunner({ index, local }) };
}
