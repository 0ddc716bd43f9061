import {
  isPlainObject,
  optionKeys,
  refuseUnknownOptions,
  separatorProblem,
  ToolError,
  type NamingOptions,
} from '@toolplane/toolmodel';
import type { ExposeOptions } from './exposed.js';
import type { NameToolsOptions } from './names.js';
import { checkSource, type ToolSelector } from './source.js';
import type { RunCallsOptions } from './turn.js';

/** Every key of {@link NameToolsOptions}: which tools, and how they are named. */
export const NAME_TOOLS_OPTION_KEYS = optionKeys<NameToolsOptions>({
  include: true,
  exclude: true,
  naming: true,
});

/**
 * Every key of {@link ExposeOptions}, which every provider's `to…Tools` takes; a provider's own
 * list is this one and its own keys ({@link joinOptionKeys}).
 */
export const EXPOSE_OPTION_KEYS = joinOptionKeys(
  NAME_TOOLS_OPTION_KEYS,
  optionKeys<Omit<ExposeOptions, keyof NameToolsOptions>>({
    mode: true,
    codeMode: true,
    signal: true,
  }),
);

/** Every key of {@link RunCallsOptions}, which every provider's `run…` function takes. */
export const RUN_CALLS_OPTION_KEYS = optionKeys<RunCallsOptions>({
  signal: true,
  concurrency: true,
  timeoutMs: true,
  maxOutputChars: true,
  maxTurnOutputChars: true,
  readsStructured: true,
  meta: true,
  onProgress: true,
});

const SELECTOR_KEYS = optionKeys<ToolSelector>({ namespaces: true, tags: true, ids: true });
const NAMING_KEYS = optionKeys<NamingOptions>({ separator: true, transparent: true });
const MODES: readonly unknown[] = ['tools', 'search', 'code'];

/** The keys of every list once each, in the order first met. */
export function joinOptionKeys(...lists: readonly (readonly string[])[]): readonly string[] {
  return Object.freeze([...new Set(lists.flat())]);
}

/**
 * Checks what an adapter's public function was given as options: no key outside `known` (a
 * misspelled one was ignored), `include` and `exclude` objects of known selectors holding lists
 * of strings (`{ include: { namespace: ['fx'] } }` selected no namespace, so it exposed every
 * tool), `naming` of known keys with a separator a provider's tool name can hold, `mode` one of
 * `tools`, `search` and `code` (another fell back to one tool per tool), and `codeMode` only with
 * `mode: 'code'`, which takes no `include` or `exclude` (each was ignored: every tool went out on
 * its own, or a program could call every tool the code mode allows).
 *
 * @param where The function called, for the message: `toOpenAITools`, `runToolUses`.
 * @throws {ToolError} `invalid_argument` naming the function and what was wrong.
 */
export function checkAdapterOptions(
  options: unknown,
  known: readonly string[],
  where: string,
): void {
  refuseUnknownOptions(options, known, where);
  const { include, exclude, naming, mode } = options as Record<string, unknown>;
  if (include !== undefined) checkSelector(include, `${where}: include`);
  if (exclude !== undefined) checkSelector(exclude, `${where}: exclude`);
  if (naming !== undefined) {
    refuseUnknownOptions(naming, NAMING_KEYS, `${where}: naming`);
    for (const key of NAMING_KEYS) {
      const value = (naming as Record<string, unknown>)[key];
      if (value !== undefined && typeof value !== 'string') {
        throw new ToolError('invalid_argument', `${where}: naming.${key} must be a string`);
      }
    }
    // A separator outside a provider's name characters makes no name legal as it is: every
    // namespaced tool went out shortened with a hash (`fx_add_efd51e28`), and nothing said why.
    const { separator } = naming as { separator?: string };
    const problem = separator === undefined ? undefined : separatorProblem(separator);
    if (problem !== undefined) {
      throw new ToolError('invalid_argument', `${where}: naming.separator ${problem}`);
    }
  }
  if (mode !== undefined && !MODES.includes(mode)) {
    throw new ToolError(
      'invalid_argument',
      `${where}: mode must be 'tools', 'search' or 'code', got ${typeof mode === 'string' ? JSON.stringify(mode) : typeof mode}`,
    );
  }
  const { codeMode } = options as { codeMode?: unknown };
  if (mode === 'code' && (include !== undefined || exclude !== undefined)) {
    // Ignored, they let a program call every tool the code mode's own filter allows.
    throw new ToolError(
      'invalid_argument',
      `${where}: include and exclude do not apply in code mode; give the code mode a filter: createCodeMode(source, { filter })`,
    );
  }
  if (codeMode !== undefined && mode !== 'code') {
    throw new ToolError(
      'invalid_argument',
      `${where}: codeMode is used only with mode: 'code'; add mode: 'code' (without it every tool would be offered on its own)`,
    );
  }
}

/**
 * {@link checkAdapterOptions}, then the source as `checkSource` checks it (not needed in code
 * mode, whose tools run on the code mode): what a provider's public function checks first, so a
 * missing source fails there, not as a `TypeError` inside.
 *
 * @throws {ToolError} `invalid_argument` naming the function and what was wrong.
 */
export function checkAdapterCall(
  source: unknown,
  options: unknown,
  known: readonly string[],
  where: string,
): void {
  checkAdapterOptions(options, known, where);
  if ((options as { mode?: unknown }).mode !== 'code') checkSource(source, where);
}

function checkSelector(selector: unknown, at: string): void {
  if (!isPlainObject(selector)) {
    throw new ToolError('invalid_argument', `${at} must be an object of namespaces, tags and ids`);
  }
  refuseUnknownOptions(selector, SELECTOR_KEYS, at);
  for (const key of SELECTOR_KEYS) {
    const list = selector[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((v) => typeof v === 'string'))) {
      throw new ToolError('invalid_argument', `${at}.${key} must be a list of strings`);
    }
  }
}
