import { checkDuration, optionKeys, refuseUnknownOptions } from '@toolplane/toolmodel';
import { checkMaxMessageBytes } from './connector-sources.js';
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
