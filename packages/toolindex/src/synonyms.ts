import { ToolError } from '@toolplane/toolmodel';
import { tokenize } from './tokenize.js';

/**
 * Words that tool catalogues and the people searching them use for the same thing, one group a
 * line. Drawn from the verbs and nouns of MCP servers' tool lists (create/make/new, delete/remove,
 * directory/folder, repository/repo, PR → pull request…). Query words are expanded with the rest
 * of their group; tools are indexed as written, so the table costs no memory per tool.
 */
export const DEFAULT_SYNONYMS: readonly (readonly string[])[] = Object.freeze([
  ['create', 'make', 'new', 'add', 'generate'],
  ['delete', 'remove', 'erase', 'destroy', 'drop', 'trash'],
  ['update', 'edit', 'modify', 'change', 'alter', 'patch'],
  ['get', 'fetch', 'retrieve', 'read', 'load', 'obtain'],
  ['list', 'show', 'enumerate', 'display', 'view', 'browse'],
  ['search', 'find', 'lookup', 'locate', 'look', 'query'],
  ['send', 'post', 'deliver', 'dispatch', 'submit'],
  ['run', 'execute', 'launch', 'trigger', 'invoke', 'start'],
  ['cancel', 'stop', 'abort', 'terminate', 'halt'],
  ['move', 'rename', 'relocate'],
  ['copy', 'duplicate', 'clone'],
  ['reply', 'respond'],
  ['approve', 'accept'],
  ['decline', 'reject', 'refuse'],
  ['directory', 'folder', 'dir'],
  ['repository', 'repo'],
  ['pull request', 'pr', 'merge request'],
  ['issue', 'ticket', 'bug'],
  ['event', 'meeting', 'appointment'],
  ['invitation', 'invite'],
  ['email', 'mail', 'e-mail'],
  ['message', 'msg'],
  ['image', 'picture', 'photo', 'img'],
  ['web page', 'webpage', 'website', 'site'],
  ['url', 'link', 'address'],
  ['time zone', 'timezone', 'tz'],
  ['database', 'db'],
  ['statistics', 'stats'],
  ['environment', 'env'],
  ['variable', 'var'],
  ['label', 'tag'],
  ['user', 'member', 'person', 'people'],
  ['customer', 'client'],
  ['payment', 'charge', 'transaction'],
  ['spreadsheet', 'sheet'],
  ['document', 'doc'],
  ['configuration', 'config', 'settings'],
  ['information', 'info', 'details', 'metadata'],
  ['compress', 'zip', 'gzip'],
]);

/**
 * Everyday words for a word of tool catalogues, one line each: the catalogue's word first, then
 * what people say instead (`kill` for cancel, `dm` for direct message, `money back` for refund).
 * One way only: `kill` expands to `cancel`, but `cancel` is not expanded to `kill`, so a common
 * catalogue word never pays for looking up its everyday forms, and an everyday word looks up
 * one more posting list rather than a whole group. A word of one or two terms can expand; two
 * adjacent query words are looked up as one.
 */
export const DEFAULT_ALIASES: readonly (readonly string[])[] = Object.freeze([
  ['create', 'publish'],
  ['delete', 'forget', 'wipe', 'purge', 'get rid of'],
  ['update', 'fix', 'reschedule', 'amend', 'adjust', 'correct'],
  ['search', 'grep'],
  ['reply', 'answer'],
  ['cancel', 'kill'],
  ['rerun', 'retry', 're-run'],
  ['post', 'say'],
  ['send', 'tell', 'notify'],
  ['move', 'transfer'],
  ['upload', 'attach'],
  ['push', 'upload'],
  ['recent', 'latest', 'newest'],
  ['select', 'pick', 'choose', 'dropdown'],
  ['backup', 'snapshot'],
  ['vacuum', 'clean up'],
  ['approve', 'sign off'],
  ['subscribe', 'sign up'],
  ['screenshot', 'capture'],
  ['fetch', 'scrape', 'download'],
  ['assign', 'allocate', 'delegate'],
  ['echo', 'repeat'],
  ['sum', 'plus'],
  ['create directory', 'mkdir'],
  ['workflow', 'ci', 'pipeline', 'build'],
  ['meeting', 'standup'],
  ['calendar', 'agenda'],
  ['out of office', 'vacation', 'holiday', 'ooo'],
  ['direct message', 'dm', 'private message'],
  ['reaction', 'emoji', 'react', 'thumbs up'],
  ['comment', 'remark'],
  ['forecast', 'snow', 'temperature'],
  ['alert', 'warning', 'storm'],
  ['user', 'colleague', 'coworker', 'someone'],
  ['customer', 'buyer'],
  ['payment', 'pay'],
  ['invoice', 'bill'],
  ['refund', 'money back', 'reimburse'],
  ['worklog', 'hours worked', 'time spent', 'timesheet', 'track time'],
  ['pull request', 'mr'],
  ['commit', 'revision'],
  ['release', 'version'],
  ['notification', 'mention'],
  ['message', 'chat'],
  ['channel', 'room'],
  ['attendee', 'participant', 'guest', 'invitee', 'attending'],
  ['sprint', 'iteration'],
  ['subscription', 'membership'],
  ['balance', 'funds'],
  ['spreadsheet', 'excel'],
  ['relation', 'relationship', 'connection'],
  ['observation', 'fact'],
  ['logging', 'logs'],
  ['update', 'tweak', 'revise'],
  ['get', 'grab', 'inspect'],
  ['search', 'seek', 'hunt for'],
  ['run', 'kick off'],
  ['copy', 'replicate'],
  ['decline', 'deny'],
  ['approve', 'lgtm'],
  ['delete', 'discard'],
  ['reply', 'write back'],
  ['image', 'pic'],
  ['message', 'note'],
]);

/** One expansion of a query word: the terms to look up, and whether it came from an alias. */
export interface Expansion {
  readonly terms: readonly string[];
  /** True for an alias's catalogue word, false for another member of a synonym group. */
  readonly alias: boolean;
}

/**
 * A synonym table in term form: for each term, the other members of its groups and its aliases'
 * targets, each as the terms it tokenises to (a multi-word synonym such as `pull request` is two
 * terms matched together). A member of two terms is a key too, as the terms joined by a space
 * (`money back` → `monei back`), so two adjacent query words can be looked up as one.
 */
export type SynonymTable = ReadonlyMap<string, readonly Expansion[]>;

/**
 * Tokenises synonym groups, and the one-way `aliases` (see {@link DEFAULT_ALIASES}), into a
 * {@link SynonymTable}; groups of one term are ignored, and members of more than two terms are
 * only ever expansions, never keys. An alias's target wins over the same words as a synonym.
 */
export function buildSynonymTable(
  groups: readonly (readonly string[])[],
  aliases: readonly (readonly string[])[] = [],
): SynonymTable {
  const table = new Map<string, Expansion[]>();
  const add = (member: readonly string[], terms: readonly string[], alias: boolean): void => {
    if (member.length > 2) return;
    const key = member.join(' ');
    const words = terms.join(' ');
    if (words === key) return;
    let list = table.get(key);
    if (list === undefined) table.set(key, (list = []));
    const known = list.findIndex((expansion) => expansion.terms.join(' ') === words);
    if (known < 0) list.push({ terms, alias });
    else if (alias) list[known] = { terms, alias };
  };
  for (const group of groups) {
    const members = group.map((words) => tokenize(words)).filter((terms) => terms.length > 0);
    for (const member of members) {
      for (const other of members) if (other !== member) add(member, other, false);
    }
  }
  for (const [target, ...words] of aliases) {
    const to = tokenize(target ?? '');
    if (to.length === 0) continue;
    for (const word of words) {
      const from = tokenize(word);
      if (from.length > 0) add(from, to, true);
    }
  }
  return table;
}

/** A synonym table, and whether any of its keys is a two-word phrase. */
export interface Synonyms {
  readonly table: SynonymTable;
  readonly hasPhrases: boolean;
}

/**
 * The synonym table of `groups` and `aliases` (the defaults when both are absent), built on the
 * first call of the function returned; the arguments are checked at once.
 *
 * @throws {ToolError} `invalid_argument` when either is not an array of arrays of strings.
 */
export function synonymTableOf(groups: unknown, aliases: unknown): () => Synonyms {
  if (groups === undefined && aliases === undefined) return defaultSynonyms;
  for (const [value, name] of [
    [groups, 'synonyms'],
    [aliases, 'aliases'],
  ] as const) {
    if (
      value !== undefined &&
      (!Array.isArray(value) ||
        !value.every(
          (group) => Array.isArray(group) && group.every((word) => typeof word === 'string'),
        ))
    ) {
      throw new ToolError('invalid_argument', `${name} must be an array of arrays of strings`);
    }
  }
  // Copied now: the caller's arrays may change before the first search.
  const ownGroups = ((groups ?? DEFAULT_SYNONYMS) as readonly (readonly string[])[]).map(
    (group) => [...group],
  );
  const ownAliases = (
    (aliases ?? (groups === undefined ? DEFAULT_ALIASES : [])) as readonly (readonly string[])[]
  ).map((alias) => [...alias]);
  let built: Synonyms | undefined;
  return () => (built ??= synonymsOf(buildSynonymTable(ownGroups, ownAliases)));
}

function synonymsOf(table: SynonymTable): Synonyms {
  return { table, hasPhrases: [...table.keys()].some((key) => key.includes(' ')) };
}

let defaultTable: Synonyms | undefined;

/** The default synonym table, built once per process, on the first search that needs it. */
function defaultSynonyms(): Synonyms {
  defaultTable ??= synonymsOf(buildSynonymTable(DEFAULT_SYNONYMS, DEFAULT_ALIASES));
  return defaultTable;
}
