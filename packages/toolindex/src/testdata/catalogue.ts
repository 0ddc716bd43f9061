import { readFileSync } from 'node:fs';
import type { IndexOptions, ToolIndex } from '../index-types.js';
import { createIndex } from '../tool-index.js';
import { syntheticTools } from './synthetic-tools.js';

interface CapturedServer {
  readonly namespace: string;
  readonly tools: readonly unknown[];
}

/** The captured `tools/list` results of real MCP servers (see scripts/capture-catalogue.ts). */
export function capturedServers(): readonly CapturedServer[] {
  const text = readFileSync(new URL('catalogue.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { servers: CapturedServer[] }).servers;
}

/** An index holding the real MCP servers' tools and the synthetic neighbours. */
export function catalogueIndex(options?: IndexOptions): ToolIndex {
  const index = createIndex(options);
  for (const server of capturedServers()) index.registerMcpTools(server.namespace, server.tools);
  index.registerTools(
    syntheticTools().map((tool) => ({
      tool,
      backend: { kind: 'mcp', mcp: { serverName: tool.namespace ?? 'synthetic' } } as const,
    })),
  );
  return index;
}
