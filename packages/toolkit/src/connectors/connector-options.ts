import { checkDuration, optionKeys, refuseUnknownOptions } from '@toolplane/toolmodel';
import { mirroredLists } from './connector-lists.js';
import { checkMaxMessageBytes } from './connector-sources.js';
import type { AddConnectorOptions } from '../toolkit/options.js';
import type { ConnectorOptions } from './connector-types.js';

/** Every key of {@link ConnectorOptions}. */
export const CONNECTOR_OPTION_KEYS = optionKeys<ConnectorOptions>({
  upstreamRequests: true,
  namespace: true,
  clientInfo: true,
  era: true,
  eraProbeTimeoutMs: true,
  logLevel: true,
  maxMessageBytes: true,
  connectTimeoutMs: true,
  startTimeoutMs: true,
  pingIntervalMs: true,
  authRecheckMs: true,
  backoff: true,
  lists: true,
  onEvent: true,
});

const BACKOFF_KEYS = optionKeys<NonNullable<ConnectorOptions['backoff']>>({
  initialDelayMs: true,
  maxDelayMs: true,
});

// Each duration with whether 0 turns it off.
const DURATIONS = [
  ['eraProbeTimeoutMs', false],
  ['connectTimeoutMs', false],
  ['startTimeoutMs', false],
  ['pingIntervalMs', true],
  ['authRecheckMs', true],
] as const;

const code = 'invalid_config';

/**
 * Checks connector options at run time, as the CLI's config file is: an unknown key (a typo,
 * or a setting of another library) would otherwise be ignored, and a duration that is negative,
 * `NaN` or past what a timer keeps would fire at once, so that every connection attempt timed
 * out, a ping went out every millisecond, or a lost server was reconnected in a tight loop.
 *
 * @param where What the options were given as: `createConnector`, `connectorDefaults`.
 * @param known The keys allowed there (default every key of {@link ConnectorOptions}).
 * @throws {ToolError} `invalid_config` naming the key and what it must be.
 */
export function checkConnectorOptions(
  options: unknown,
  where: string,
  known: readonly string[] = CONNECTOR_OPTION_KEYS,
  instead?: Readonly<Record<string, string>>,
): void {
  refuseUnknownOptions(options, known, where, {
    code,
    ...(instead === undefined ? {} : { instead }),
  });
  const given = options as ConnectorOptions;
  for (const [key, zero] of DURATIONS) {
    const value = given[key];
    if (value !== undefined) checkDuration(value, `${where}.${key}`, { code, zero });
  }
  const backoff = given.backoff;
  if (backoff !== undefined) {
    refuseUnknownOptions(backoff, BACKOFF_KEYS, `${where}.backoff`, { code });
    for (const key of ['initialDelayMs', 'maxDelayMs'] as const) {
      const value = backoff[key];
      if (value !== undefined) checkDuration(value, `${where}.backoff.${key}`, { code });
    }
  }
  checkMaxMessageBytes(given.maxMessageBytes);
}

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
