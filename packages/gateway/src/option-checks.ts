import {
  checkCount,
  checkDuration,
  isPlainObject,
  optionKeys,
  refuseUnknownOptions,
  separatorProblem,
  ToolError,
} from '@toolplane/toolmodel';
import { shownValue } from '@toolplane/toolmodel/text';
import type { GatewayOptions, GatewayReconfigure, GatewayToolFilter } from './options.js';

/** How the gateway's count options are checked (`countOr`): a refusal is a config error. */
export const CONFIG_COUNT = { code: 'invalid_config' } as const;

/** A gateway count option that may be 0. */
export const CONFIG_COUNT_OR_ZERO = { code: 'invalid_config', min: 0 } as const;

/** Every key of {@link GatewayOptions}, which every way of serving takes. */
export const GATEWAY_OPTION_KEYS = optionKeys<GatewayOptions>({
  separator: true,
  transparent: true,
  serverInfo: true,
  instructions: true,
  pageSize: true,
  filter: true,
  mode: true,
  codeMode: true,
  requestStateKey: true,
  replayTools: true,
  replayRounds: true,
  spendRequestState: true,
  listTtlMs: true,
  inputRoundTtlMs: true,
  instanceId: true,
  notifyDelayMs: true,
  logger: true,
  observe: true,
  callLane: true,
});

/** Every key of {@link GatewayReconfigure}. */
export const RECONFIGURE_KEYS = optionKeys<GatewayReconfigure>({
  filter: true,
  mode: true,
  separator: true,
  transparent: true,
  instructions: true,
});

const FILTER_KEYS = optionKeys<GatewayToolFilter>({
  allow: true,
  deny: true,
  allowTags: true,
  denyTags: true,
});

const code = 'invalid_config';
const MODES: readonly unknown[] = ['tools', 'search', 'code'];

/**
 * Checks a gateway's options when it is made, as the CLI's config file is checked: an unknown
 * key used to be ignored. For most that is a setting lost without a word; for a filter it is a
 * hole: `{ github: { alow: [...] } }` allowed every tool of the server, and `{ dney: [...] }`
 * denied none.
 *
 * @param where The function called, for the message: `serveHttp`, `serveStdio`, `createMcpServer`.
 * @param known Every option key it takes (the gateway's own, and its transport's).
 * @throws {ToolError} `invalid_config` for an unknown key (of the options, or of a namespace's
 * filter), a filter that is not an object of lists of strings, a separator no exposed tool name
 * can hold, a mode other than `tools`, `search` and `code`, a page size that is not a positive
 * integer, a `transparent` or `instructions` that is not a string, or a duration that is not a
 * whole number of milliseconds up to 2^31 − 1.
 */
export function checkGatewayOptions(
  options: unknown,
  where: string,
  known: readonly string[],
): void {
  refuseUnknownOptions(options, known, where, { code });
  const { filter, separator, mode, pageSize, listTtlMs, inputRoundTtlMs, notifyDelayMs } =
    options as GatewayOptions;
  if (filter !== undefined) checkFilters(filter, where);
  // Another mode served every tool on its own; a page of 0 (or NaN) listed no tool at all.
  if (mode !== undefined && !MODES.includes(mode)) {
    throw new ToolError(
      code,
      `${where}: mode must be 'tools', 'search' or 'code', got ${shownValue(mode)}`,
    );
  }
  if (pageSize !== undefined) checkCount(pageSize, 'pageSize', CONFIG_COUNT);
  for (const key of ['transparent', 'instructions'] as const) {
    const value = (options as GatewayOptions)[key];
    if (value !== undefined && typeof value !== 'string') {
      throw new ToolError(code, `${where}: ${key} must be a string, got ${shownValue(value)}`);
    }
  }
  // Outside a tool name's characters, every namespaced tool went out shortened with a hash.
  const problem = separator === undefined ? undefined : separatorProblem(separator);
  if (problem !== undefined) throw new ToolError(code, `${where}: separator ${problem}`);
  for (const [key, value] of [
    ['listTtlMs', listTtlMs],
    ['inputRoundTtlMs', inputRoundTtlMs],
    ['notifyDelayMs', notifyDelayMs],
  ] as const) {
    if (value !== undefined)
      checkDuration(value, `${where}: ${key}`, {
        code,
        zero: key !== 'inputRoundTtlMs',
        whole: true,
      });
  }
}

function checkFilters(filters: unknown, where: string): void {
  if (!isPlainObject(filters)) {
    throw new ToolError(
      code,
      `${where}: filter must be an object of namespace → { allow, deny, allowTags, denyTags }`,
    );
  }
  for (const [namespace, filter] of Object.entries(filters)) {
    const at = `${where}: filter.${namespace}`;
    refuseUnknownOptions(filter, FILTER_KEYS, at, { code });
    for (const key of FILTER_KEYS) {
      const list: unknown = (filter as Record<string, unknown>)[key];
      if (
        list !== undefined &&
        !(Array.isArray(list) && list.every((item) => typeof item === 'string'))
      ) {
        throw new ToolError(code, `${at}.${key} must be a list of strings`);
      }
    }
  }
}
