import {
  UnsupportedProtocolVersionError,
  type Client,
  type Implementation,
  type PriorDiscovery,
  type ServerCapabilities,
  type VersionNegotiationOptions,
} from '@modelcontextprotocol/client';
import { ToolError } from '@toolplane/toolmodel';
import { MODERN_PROTOCOL_VERSION } from '@toolplane/toolmodel/wire';

/**
 * Which MCP era a connector speaks: `'auto'` probes the server (`server/discover`) and speaks
 * 2026-07-28 when it can, else 2025-11-25; `'2025'` and `'2026'` pin one era.
 */
export type ConnectorEra = 'auto' | '2025' | '2026';

/** The era a connection speaks. */
export type SpokenEra = '2025' | '2026';

/** How long a stdio server may leave the era probe unanswered before it is taken for a 2025 one. */
export const DEFAULT_ERA_PROBE_TIMEOUT_MS = 3_000;

const ERAS: readonly string[] = ['auto', '2025', '2026'];

/**
 * Checks an era setting that may come from JSON or plain JavaScript.
 *
 * @throws {ToolError} `invalid_config` naming the allowed values.
 */
export function checkEra(value: unknown): ConnectorEra {
  if (value === undefined) return 'auto';
  if (typeof value === 'string' && ERAS.includes(value)) return value as ConnectorEra;
  throw new ToolError(
    'invalid_config',
    `era must be "auto", "2025" or "2026", not ${JSON.stringify(value)}`,
  );
}

/** What the server said about itself on the current connection. */
export interface ConnectorServerInfo {
  /** The server's name and version, as it reported them. */
  readonly name: string;
  readonly version: string;
  /** The protocol revision spoken, e.g. `2025-11-25` or `2026-07-28`. */
  readonly protocolVersion: string;
  /** The era of {@link protocolVersion}. */
  readonly era: SpokenEra;
  readonly capabilities: ServerCapabilities;
}

/** The server info of a connected client; `undefined` before it is connected. */
export function serverInfoOf(client: Client): ConnectorServerInfo | undefined {
  const protocolVersion = client.getNegotiatedProtocolVersion();
  if (protocolVersion === undefined) return undefined;
  const info: Implementation | undefined = client.getServerVersion();
  return {
    name: info?.name ?? '',
    version: info?.version ?? '',
    protocolVersion,
    era: client.getProtocolEra() === 'modern' ? '2026' : '2025',
    capabilities: client.getServerCapabilities() ?? {},
  };
}

/** The SDK client's negotiation for an era setting. */
export function negotiationFor(
  era: ConnectorEra,
  probeTimeoutMs: number | undefined,
): VersionNegotiationOptions | undefined {
  if (era === '2025') return undefined;
  if (era === '2026') return { mode: { pin: MODERN_PROTOCOL_VERSION } };
  return {
    mode: 'auto',
    ...(probeTimeoutMs === undefined ? {} : { probe: { timeoutMs: probeTimeoutMs } }),
  };
}

/**
 * Whether a failed connection (or what it wraps) was a server refusing 2025-11-25 while naming
 * 2026-07-28 among the versions it speaks: under `'auto'`, a 2026 server whose answer to the era
 * probe came after the bound (a slow start, a loaded machine) and was taken for a 2025 one.
 */
export function refusedForModern(error: unknown): boolean {
  for (let at = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    if (at instanceof UnsupportedProtocolVersionError) {
      const data = at.data as { readonly supported?: readonly string[] } | undefined;
      return data?.supported?.includes(MODERN_PROTOCOL_VERSION) === true;
    }
  }
  return false;
}

/**
 * What one upstream spoke when last connected under `'auto'`, so a reconnect skips the probe:
 * the server's `server/discover` answer, or that it is a 2025 server. Forgotten when a connection
 * made on it fails, so the next one probes again.
 */
export class EraMemory {
  #prior: PriorDiscovery | undefined;

  /** The verdict to connect with, if any. */
  get prior(): PriorDiscovery | undefined {
    return this.#prior;
  }

  /** Remembers what `client` negotiated. */
  remember(client: Client): void {
    const discover = client.getDiscoverResult();
    if (client.getProtocolEra() === 'modern' && discover !== undefined) {
      this.#prior = { kind: 'modern', discover };
    } else if (client.getProtocolEra() === 'legacy') {
      this.#prior = { kind: 'legacy' };
    }
  }

  forget(): void {
    this.#prior = undefined;
  }
}
