import { checkDuration, optionKeys, refuseUnknownOptions } from '@toolplane/toolmodel';
import type { AddConnectorOptions, RemoveConnectorOptions } from '../toolkit/options.js';
import { mirroredLists } from './connector-lists.js';
import { CONNECTOR_OPTION_KEYS, checkConnectorOptions } from './connector-options.js';

// The checks of the options a toolkit takes for its connectors; a connector's own are in
// connector-options.ts, which the connector itself uses (and so cannot import the toolkit's types).

const code = 'invalid_config';

// A toolkit sets these itself for every connector it makes.
const SET_BY_THE_TOOLKIT: Readonly<Record<string, string>> = {
  namespace: 'a namespace is per server: toolkit.addConnector(source, { namespace })',
  onEvent: 'listen to every server with toolkit.onEvent(listener)',
  upstreamRequests: 'give createToolkit({ upstreamRequests })',
};
const DEFAULT_KEYS = CONNECTOR_OPTION_KEYS.filter((key) => !(key in SET_BY_THE_TOOLKIT));

const ADD_KEYS = optionKeys<AddConnectorOptions>({
  namespace: true,
  connection: true,
  era: true,
  startTimeoutMs: true,
  lists: true,
});
// A connector option `addConnector` does not take is one the toolkit sets for every server.
const INSTEAD_OF_ADD: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    DEFAULT_KEYS.filter((key) => !ADD_KEYS.includes(key)).map((key) => [
      key,
      `${key} is set for every server: createToolkit({ connectorDefaults: { ${key} } })`,
    ]),
  ),
  onEvent: SET_BY_THE_TOOLKIT.onEvent as string,
  upstreamRequests: SET_BY_THE_TOOLKIT.upstreamRequests as string,
};

/**
 * Checks a toolkit's `connectorDefaults` as {@link checkConnectorOptions} does, when given.
 *
 * @throws {ToolError} `invalid_config` naming the key and what it must be.
 */
export function checkConnectorDefaults(defaults: unknown): void {
  if (defaults !== undefined) {
    checkConnectorOptions(defaults, 'connectorDefaults', DEFAULT_KEYS, SET_BY_THE_TOOLKIT);
  }
}

/**
 * Checks the options of `toolkit.addConnector`: its own keys only (another connector option
 * is told where it goes), its `startTimeoutMs` as a duration and its `lists`.
 *
 * @throws {ToolError} `invalid_config` naming the key and what it must be.
 */
export function checkAddConnectorOptions(options: unknown): void {
  refuseUnknownOptions(options, ADD_KEYS, 'addConnector', { code, instead: INSTEAD_OF_ADD });
  const { startTimeoutMs, lists } = options as AddConnectorOptions;
  if (startTimeoutMs !== undefined) {
    checkDuration(startTimeoutMs, 'addConnector startTimeoutMs', { code });
  }
  mirroredLists(lists);
}

const REMOVE_KEYS = optionKeys<RemoveConnectorOptions>({ drainMs: true });

/**
 * Checks the options of `toolkit.removeConnector`, before anything is removed: a drain bound a
 * timer cannot keep would otherwise throw once the server was out of service, leaving it running.
 *
 * @throws {ToolError} `invalid_config` naming the key and what it must be.
 */
export function checkRemoveConnectorOptions(options: unknown): void {
  refuseUnknownOptions(options, REMOVE_KEYS, 'removeConnector', { code });
  const { drainMs } = options as RemoveConnectorOptions;
  if (drainMs !== undefined) {
    checkDuration(drainMs, 'removeConnector drainMs', { code, zero: true, whole: true });
  }
}
