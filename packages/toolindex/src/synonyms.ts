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
  // Everyday words for a catalogue's word, each paired with that word alone: a rare word then
  // looks up one more list, not a whole group of common ones.
  ['publish', 'create'],
  ['forget', 'delete'],
  ['fix', 'update'],
  ['reschedule', 'update'],
  ['grep', 'search'],
  ['answer', 'reply'],
  ['kill', 'cancel'],
  ['retry', 'rerun'],
  ['re-run', 'rerun'],
  ['assign', 'allocate', 'delegate'],
  ['echo', 'repeat'],
  ['sum', 'plus', 'total'],
  ['mkdir', 'create directory'],
  ['workflow', 'ci', 'pipeline', 'build'],
  ['standup', 'meeting'],
  ['agenda', 'calendar'],
  ['out of office', 'vacation', 'holiday', 'ooo'],
  ['direct message', 'dm', 'private message'],
  ['reaction', 'emoji', 'react', 'thumbs up'],
  ['comment', 'remark'],
  ['forecast', 'rain', 'snow', 'temperature'],
  ['alert', 'warning', 'storm'],
  ['user', 'colleague', 'coworker', 'teammate', 'someone'],
  ['customer', 'buyer'],
  ['payment', 'pay'],
  ['invoice', 'bill'],
  ['refund', 'money back', 'reimburse'],
  ['worklog', 'hours worked', 'time spent', 'timesheet'],
]);

/** One expansion of a query word: the terms to look up, and how much a match on them counts. */
export interface Expansion {
  readonly terms: readonly string[];
  readonly factor: number;
}

/**
 * A synonym table in term form: for each term, the other members of its groups, each as the
 * terms it tokenises to (a multi-word synonym such as `pull request` is two terms matched
 * together). A member of two terms is a key too, as the terms joined by a space (`money back` →
 * `monei back`), so two adjacent query words can be looked up as one.
 */
export type SynonymTable = ReadonlyMap<string, readonly (readonly string[])[]>;

/**
 * Tokenises synonym groups into a {@link SynonymTable}; groups of one term are ignored, and
 * members of more than two terms are only ever expansions, never keys.
 */
export function buildSynonymTable(groups: readonly (readonly string[])[]): SynonymTable {
  const table = new Map<string, (readonly string[])[]>();
  for (const group of groups) {
    const members = group.map((words) => tokenize(words)).filter((terms) => terms.length > 0);
    for (const member of members) {
      if (member.length > 2) continue;
      const key = member.join(' ');
      let list = table.get(key);
      if (list === undefined) table.set(key, (list = []));
      for (const other of members) {
        if (other === member || other.join(' ') === key) continue;
        if (!list.some((known) => known.join(' ') === other.join(' '))) list.push(other);
      }
    }
  }
  return table;
}
