import type { Implementation, ServerOptions } from '@modelcontextprotocol/server';
import { GATEWAY_PROTOCOL_VERSIONS } from '../eras.js';
import { INSTANCE_META_KEY } from '../jsonrpc.js';
import type { GatewayOptions } from '../options.js';
import { VERSION } from '../version.js';
import { GatewayServer } from './gateway-server.js';

// What every session's server is made with: the gateway's identity, capabilities, versions and
// list cache hints, the same for all sessions of one gateway.

const DEFAULT_LIST_TTL_MS = 60_000;

/** The same cache hint for every list a 2026 client may cache. */
function listCacheHints(ttlMs: number): ServerOptions['cacheHints'] {
  const hint = { ttlMs, cacheScope: 'private' as const };
  return {
    'tools/list': hint,
    'prompts/list': hint,
    'resources/list': hint,
    'resources/templates/list': hint,
  };
}
const DEFAULT_SERVER_INFO: Implementation = { name: 'toolplane-gateway', version: VERSION };

/**
 * A gateway server as every session gets one, with no handlers yet: the gateway's identity,
 * capabilities, instructions, versions and cache hints, its errors tagged with the instance.
 *
 * @internal
 */
export function newGatewayServer(options: GatewayOptions): GatewayServer {
  const server = new GatewayServer(
    options.serverInfo ?? DEFAULT_SERVER_INFO,
    sdkOptionsOf(options),
  );
  if (options.instanceId !== undefined) {
    server.tagErrors({ [INSTANCE_META_KEY]: options.instanceId });
  }
  return server;
}

type SdkServerOptions = NonNullable<ConstructorParameters<typeof GatewayServer>[1]>;

/** The SDK server options of each gateway's options, made once (see {@link sdkOptionsOf}). */
const sdkOptions = new WeakMap<GatewayOptions, SdkServerOptions>();

/**
 * The SDK server options every session of a gateway is made with. The same for all of them, so
 * made once per gateway: the SDK copies the top level of `capabilities` and only reads the rest,
 * and each session built its own capabilities, versions and cache hints before.
 */
function sdkOptionsOf(options: GatewayOptions): SdkServerOptions {
  let made = sdkOptions.get(options);
  if (made === undefined) {
    made = {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        logging: {},
      },
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
      supportedProtocolVersions: [...GATEWAY_PROTOCOL_VERSIONS],
      // 2026-07-28 only: the SDK never puts cache fields on a 2025 answer.
      cacheHints: listCacheHints(options.listTtlMs ?? DEFAULT_LIST_TTL_MS),
    };
    sdkOptions.set(options, made);
  }
  return made;
}
