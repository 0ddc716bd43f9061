import { fromMcpJson, type Tool } from '@toolplane/toolmodel';
import { capturedServers } from './catalogue.js';
import { syntheticCatalogue, random } from './synthetic-catalogue.js';
import type { SearchDocument } from '../searcher.js';
import { syntheticTools } from './synthetic-tools.js';

/**
 * The quality catalogue (real servers' tools and the hand-written ones modelled on popular
 * servers) padded to `size` tools with distractors, half of each kind:
 *
 * - real tool lists re-namespaced as other products: every brand word becomes the new brand and
 *   every domain noun is swapped for one drawn at random (a few draws land on another server's
 *   nouns, so `create_issue` may come back as `create_message` in a chat-like product);
 * - synthetic near-duplicates (`verb_noun_word` names over a long-tailed vocabulary).
 *
 * The same `size` and `seed` always give the same tools. Test and bench data only.
 */
export function paddedCatalogue(size: number, seed = 7): Tool[] {
  const base = baseTools();
  const padding = Math.max(0, size - base.length);
  const copies = Math.floor(padding / 2);
  const tools = [...base, ...domainCopies(base, copies, seed)];
  const synthetic = syntheticCatalogue(size - tools.length, seed + 1).tools;
  for (const tool of synthetic) tools.push(tool);
  return tools;
}

/** The quality catalogue as plain tools, in registration order. */
export function baseTools(): Tool[] {
  const tools: Tool[] = [];
  for (const server of capturedServers()) {
    for (const json of server.tools) tools.push(fromMcpJson(json, { namespace: server.namespace }));
  }
  tools.push(...syntheticTools());
  return tools;
}

const BRANDS = new Set(
  (
    'github gitlab slack postgresql postgres pg jira jql stripe google drive docs sheets gmail ' +
    'actions mcp git readme pg_dump pg_stat_activity pg_stat_statements toast'
  ).split(' '),
);

/** Nouns that tell the catalogue's tools apart; the copies swap them. */
const DOMAIN_NOUNS = new Set(
  (
    'issue bug pull request repository repo branch commit file directory folder message channel ' +
    'thread reaction emoji workspace member profile status table query index schema row column ' +
    'database statement plan event meeting calendar invitation attendee slot email mailbox inbox ' +
    'label attachment draft ticket story sprint board worklog customer invoice refund payment ' +
    'charge subscription price balance link product document doc spreadsheet sheet cell pdf page ' +
    'url web screenshot browser weather forecast alert city time zone date entity relation ' +
    'observation graph node workflow run release tag notification review reviewer code diff tree ' +
    'image number sum environment variable logging resource content text line size permission ' +
    'pattern glob markdown note velocity reviewers assignee milestone head base topic star ' +
    'language author ref team user people hour day input string output operation progress ' +
    'annotation metadata research information subscriber logo configuration encoding error ' +
    'audio knowledge office'
  ).split(' '),
);

const POOL = (
  'shipment warehouse order parcel vehicle driver route patient appointment prescription ' +
  'recipe ingredient flight booking hotel room guest playlist song album track podcast episode ' +
  'video stream camera sensor device reading metric dashboard alarm incident runbook server ' +
  'cluster pod container deployment secret certificate domain record lead deal contact ' +
  'opportunity campaign segment audience coupon cart checkout catalog inventory supplier vendor ' +
  'contract employee candidate job interview payroll expense receipt budget ledger account ' +
  'transaction transfer wallet token asset portfolio trade quote policy claim course lesson ' +
  'student grade assignment exam library book loan member poll survey response form field ' +
  'widget component layout theme font icon asset bucket object volume snapshot backup job ' +
  'pipeline stage artifact package module dependency license vulnerability scan finding rule ' +
  'alert message file table event ticket issue document user project task note comment'
).split(' ');

const SYLLABLES = 'zo ra ki mel tor va nu pix ul bre do fen sa quin tro lo'.split(' ');

function swapWords(text: string, brand: string, nouns: Map<string, string>): string {
  return text.replace(/[A-Za-z][A-Za-z_]*/g, (word) => {
    const lower = word.toLowerCase();
    if (BRANDS.has(lower)) return brand;
    const key = DOMAIN_NOUNS.has(lower)
      ? lower
      : lower.endsWith('ies') && DOMAIN_NOUNS.has(`${lower.slice(0, -3)}y`)
        ? `${lower.slice(0, -3)}y`
        : lower.endsWith('es') && DOMAIN_NOUNS.has(lower.slice(0, -2))
          ? lower.slice(0, -2)
          : lower.endsWith('s') && DOMAIN_NOUNS.has(lower.slice(0, -1))
            ? lower.slice(0, -1)
            : lower;
    const swapped = nouns.get(key);
    if (swapped === undefined) return word;
    const out = key === lower ? swapped : `${swapped}s`;
    return word.charAt(0) === word.charAt(0).toUpperCase()
      ? out.charAt(0).toUpperCase() + out.slice(1)
      : out;
  });
}

function swapName(name: string, brand: string, nouns: Map<string, string>): string {
  return name
    .split(/([_.-])/)
    .map((part) => (/^[_.-]$/.test(part) ? part : swapWords(part, brand, nouns).toLowerCase()))
    .join('');
}

function domainCopies(base: readonly Tool[], count: number, seed: number): Tool[] {
  const next = random(seed);
  const servers = new Map<string, Tool[]>();
  for (const tool of base) {
    const key = tool.namespace ?? '';
    let list = servers.get(key);
    if (list === undefined) servers.set(key, (list = []));
    list.push(tool);
  }
  const lists = [...servers.values()];
  const out: Tool[] = [];
  const taken = new Set<string>();
  for (let copy = 0; out.length < count; copy++) {
    let brand = '';
    const syllables = 2 + Math.floor(next() * 2);
    for (let i = 0; i < syllables; i++)
      brand += SYLLABLES[Math.floor(next() * SYLLABLES.length)] ?? '';
    const namespace = `${brand}-${copy}`;
    const nouns = new Map<string, string>();
    for (const noun of DOMAIN_NOUNS)
      nouns.set(noun, POOL[Math.floor(next() * POOL.length)] ?? noun);
    const list = lists[copy % lists.length] ?? [];
    for (const tool of list) {
      if (out.length === count) break;
      let name = swapName(tool.name, brand, nouns);
      while (taken.has(`${namespace}:${name}`)) name = `${name}_2`;
      taken.add(`${namespace}:${name}`);
      out.push({
        name,
        namespace,
        ...(tool.title === undefined ? {} : { title: swapWords(tool.title, brand, nouns) }),
        ...(tool.description === undefined
          ? {}
          : { description: swapWords(tool.description, brand, nouns) }),
        ...(tool.tags === undefined
          ? {}
          : { tags: tool.tags.map((tag) => swapName(tag, brand, nouns)) }),
        inputSchema: tool.inputSchema,
      });
    }
  }
  return out;
}

/** `tool` as the search document the index hands its searcher (its canonical ID, its text). */
export function searchDocumentOf(tool: Tool): SearchDocument {
  return {
    id: tool.namespace === undefined ? tool.name : `${tool.namespace}:${tool.name}`,
    name: tool.name,
    namespace: tool.namespace,
    title: tool.title,
    description: tool.description,
    tags: tool.tags ?? [],
  };
}
