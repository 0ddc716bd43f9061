import { optionKeys, refuseUnknownOptions, ToolError } from '@toolplane/toolmodel';
import type { ToolkitConnector } from '../connectors/connector-types.js';
import type { Connectors } from '../connectors/registry.js';
import type { Logger } from '../session.js';
import { createMemoryPinStore } from './memory-pin-store.js';
import { PinGate, type PinningMode, type PinningOptions } from './pin-gate.js';

const MODES: readonly PinningMode[] = ['block', 'warn', 'off'];
const KNOWN = optionKeys<PinningOptions>({ mode: true, store: true, who: true, logger: true });

/** A toolkit's pinning: its gate, and whether it owns (and so closes) the store. @internal */
export interface ToolkitPinning {
  readonly gate: PinGate;
  /** Whether calls can be refused (`block`): only then does a call wait on a list re-fetch. */
  readonly blocks: boolean;
  close(): Promise<void>;
}

/**
 * Starts the pinning the toolkit's `pinning` option asks for, filtering what `connectors`
 * mirror into the index; `undefined` when it is off.
 *
 * @throws {ToolError} `invalid_config` for a mode other than `block`, `warn` or `off`, or an
 * unknown option (a misspelled `store` would keep the pins in memory, lost at exit).
 * @internal
 */
export function startPinning(
  option: PinningMode | PinningOptions | undefined,
  logger: Logger,
  connectors: Pick<Connectors, 'resync' | 'toolFilter'>,
): ToolkitPinning | undefined {
  const options = typeof option === 'object' ? option : { mode: option ?? 'off' };
  refuseUnknownOptions(options, KNOWN, 'pinning', { code: 'invalid_config' });
  const mode: unknown = options.mode;
  if (!MODES.includes(mode as PinningMode)) {
    throw new ToolError(
      'invalid_config',
      `pinning must be "block", "warn" or "off", not ${JSON.stringify(mode)}`,
    );
  }
  if (options.mode === 'off') return undefined;
  const owned = options.store === undefined;
  const store = options.store ?? createMemoryPinStore();
  const gate = new PinGate({
    mode: options.mode,
    store,
    who: options.who ?? 'toolkit',
    logger: options.logger ?? logger,
    resync: (namespace) => {
      connectors.resync(namespace);
    },
  });
  connectors.toolFilter = (namespace, tools) => gate.filter(namespace, tools);
  return {
    gate,
    blocks: options.mode === 'block',
    async close() {
      gate.close();
      if (owned) await store.close();
    },
  };
}

/**
 * Refuses a call to an upstream tool withheld by pinning. It first waits for a re-fetch of the
 * server's tool list in progress: a server that announced a change just before the call is
 * checked before the call runs.
 *
 * @throws {ToolError} `tool_changed` naming the change and the command that accepts it.
 * @internal
 */
export async function guardCall(
  pinning: ToolkitPinning | undefined,
  connector: ToolkitConnector | undefined,
  id: string,
): Promise<void> {
  if (pinning?.blocks !== true || connector === undefined) return;
  await connector.toolsSettled?.();
  const name = id.slice(connector.namespace.length + 1).split(':')[0] ?? '';
  const refusal = pinning.gate.refusal(connector.namespace, name);
  if (refusal !== undefined) throw refusal;
}

/**
 * The refusal {@link guardCall} would throw for `id` (`namespace:name`), or `undefined`: what a
 * gateway answers a call of an unlisted tool with, and what a failed lookup is replaced by.
 * @internal
 */
export async function refusalFor(
  pinning: ToolkitPinning | undefined,
  connectorOf: (namespace: string) => ToolkitConnector | undefined,
  id: string,
): Promise<ToolError | undefined> {
  if (typeof id !== 'string') return undefined;
  const at = id.indexOf(':');
  if (at <= 0) return undefined;
  try {
    await guardCall(pinning, connectorOf(id.slice(0, at)), id);
    return undefined;
  } catch (error) {
    return ToolError.isInstance(error) ? error : undefined;
  }
}
