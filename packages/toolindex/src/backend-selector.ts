import { backendKey, type Tool, type ToolBackend } from '@toolplane/toolmodel';

/**
 * Picks the backend a tool runs on from the ones registered for it, or `undefined` to decline
 * them all. The index calls it whenever a tool's definition or backends change and keeps the
 * answer, so it should be a pure function of its arguments.
 */
export type BackendSelector = (
  backends: readonly ToolBackend[],
  tool: Tool,
) => ToolBackend | undefined;

const RANK: Record<ToolBackend['kind'], number> = { local: 0, provider: 1, mcp: 2 };

/**
 * The default {@link BackendSelector}: an in-process `local` handler first (no transport at
 * all), then a `provider`, then an `mcp` server; among backends of the same kind the one with
 * the smallest {@link backendKey} wins, so the choice never depends on registration order.
 */
export const defaultBackendSelector: BackendSelector = (backends) => {
  if (backends.length === 1) return backends[0];
  let best: ToolBackend | undefined;
  let bestKey = '';
  for (const backend of backends) {
    const rank = RANK[backend.kind];
    const key = backendKey(backend);
    if (
      best === undefined ||
      rank < RANK[best.kind] ||
      (rank === RANK[best.kind] && key < bestKey)
    ) {
      best = backend;
      bestKey = key;
    }
  }
  return best;
};
