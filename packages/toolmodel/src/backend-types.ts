// The binding types alone, so the error family can name a backend without importing the checks
// in backend.ts (which throw its errors).

/** A tool served by an upstream MCP server, called by its MCP name on that server. */
export interface McpBackend {
  readonly kind: 'mcp';
  readonly mcp: { readonly serverName: string };
}

/** A tool served by an external provider (an API, a plugin host), addressed by its own IDs. */
export interface ProviderBackend {
  readonly kind: 'provider';
  readonly provider: { readonly providerId: string; readonly toolId: string };
}

/** A tool implemented by a handler registered in-process under `name`. */
export interface LocalBackend {
  readonly kind: 'local';
  readonly local: { readonly name: string };
}

/**
 * Where a tool runs. Bindings are kept apart from the {@link Tool} so one tool can have several;
 * the union is discriminated on `kind` and grows only by adding kinds.
 */
export type ToolBackend = McpBackend | ProviderBackend | LocalBackend;

/** The discriminant of {@link ToolBackend}. */
export type ToolBackendKind = ToolBackend['kind'];
