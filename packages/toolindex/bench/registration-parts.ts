/**
 * What one `registerTool` at 100k tools is made of: the CPU time a tool of each part measured
 * alone over the bench catalogue, in interleaved rounds, medians of ROUNDS (default 5). The
 * parts overlap nothing and leave out the garbage collection of the whole, so their sum under
 * the full `registerTool` line is roughly the index's own bookkeeping plus that collection.
 *
 * - validate: toolmodel's `validateTool` and `validateBackend`;
 * - frozen copy: `frozenCopy` of the definition (the one copy the index keeps);
 * - tokenise: the terms of each tool's name, namespace, tags, title and description, resolved to
 *   term numbers (the BM25 collector alone, its postings left empty);
 * - BM25 add: the index's own searcher indexing plain documents (tokenise plus the postings);
 * - registerTool, no search: an index given a searcher that does nothing;
 * - registerTool: the whole of it, as `pnpm bench` times it;
 * - floor, no search: what any index keyed by ID must do (validate, frozen copy, the ID, one
 *   record a tool in one map), with none of the index's other bookkeeping (the entry, backend
 *   selection, namespaces, versions, events);
 * - floor: the same plus the index's own BM25 searcher indexing the record. Against
 *   registerTool, it says how much of a registration the index's bookkeeping is and how much
 *   the search index: the part no trimming of the rest can take away.
 *
 * Run: pnpm --filter @toolplane/toolindex bench:registration   (node --expose-gc)
 */
import { loadavg } from 'node:os';
import { validateBackend, validateTool, type Tool, type ToolBackend } from '@toolplane/toolmodel';
import { DEFAULT_FIELD_WEIGHTS } from '../src/bm25-options.js';
import { createLinkedBm25Searcher } from '../src/bm25-searcher.js';
import { createTermCollector } from '../src/document-terms.js';
import { createIndex } from '../src/index.js';
import { idOf } from '../src/index-args.js';
import { frozenCopy } from '../src/json.js';
import { createPostings, type SlotDirectory } from '../src/postings.js';
import type { SearchDocument, Searcher } from '../src/searcher.js';
import { paddedCatalogue, searchDocumentOf } from '../src/testdata/scale-catalogue.js';

const SIZE = 100_000;
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (the bench script does)');

const tools = paddedCatalogue(SIZE);
const backends: ToolBackend[] = tools.map((tool) => ({
  kind: 'mcp',
  mcp: { serverName: tool.namespace ?? 'default' },
}));
const documents: SearchDocument[] = tools.map(searchDocumentOf);
// Slots the searcher hands out go nowhere: the parts are measured without the index's map.
const nowhere: SlotDirectory = {
  get: () => undefined,
  add: () => undefined,
  move: () => undefined,
  delete: () => undefined,
};
const idle: Searcher = {
  upsert: () => undefined,
  remove: () => undefined,
  search: () => Promise.resolve([]),
};

/** The least record a keyed index keeps: the frozen tool, its backend and its searcher slot. */
class FloorRecord implements SearchDocument {
  slot = -1;
  constructor(
    readonly id: string,
    readonly tool: Tool,
    readonly backend: ToolBackend,
  ) {}
  get name(): string {
    return this.tool.name;
  }
  get namespace(): string | undefined {
    return this.tool.namespace;
  }
  get title(): string | undefined {
    return this.tool.title;
  }
  get description(): string | undefined {
    return this.tool.description;
  }
  get tags(): readonly string[] {
    return this.tool.tags ?? [];
  }
}

/** Validates, copies and keys every tool into one map, handing each record to `index`. */
function floor(index: (record: FloorRecord) => void): Map<string, FloorRecord> {
  const records = new Map<string, FloorRecord>();
  for (let i = 0; i < SIZE; i++) {
    const input = tools[i] as Tool;
    const backend = backends[i] as ToolBackend;
    validateTool(input);
    validateBackend(backend);
    const tool = frozenCopy(input);
    const id = idOf(tool);
    if (records.has(id)) throw new Error(`the catalogue names ${id} twice`);
    const record = new FloorRecord(id, tool, backend);
    records.set(id, record);
    index(record);
  }
  return records;
}

const parts: Record<string, () => unknown> = {
  validate: () => {
    for (let i = 0; i < SIZE; i++) {
      validateTool(tools[i]);
      validateBackend(backends[i]);
    }
  },
  'frozen copy': () => {
    const kept = new Array<unknown>(SIZE);
    for (let i = 0; i < SIZE; i++) kept[i] = frozenCopy(tools[i]);
    return kept;
  },
  tokenise: () => {
    const collector = createTermCollector(createPostings(nowhere), DEFAULT_FIELD_WEIGHTS, 0.75);
    for (const doc of documents) collector.collect(doc);
  },
  'BM25 add': () => {
    const searcher = createLinkedBm25Searcher({}, nowhere);
    for (const doc of documents) searcher.add(doc);
    return searcher;
  },
  'registerTool, no search': () => {
    const index = createIndex({ searcher: idle });
    for (let i = 0; i < SIZE; i++) index.registerTool(tools[i] as Tool, backends[i] as ToolBackend);
    return index;
  },
  registerTool: () => {
    const index = createIndex();
    for (let i = 0; i < SIZE; i++) index.registerTool(tools[i] as Tool, backends[i] as ToolBackend);
    return index;
  },
  'floor, no search': () => floor(() => undefined),
  floor: () => {
    const slots: SlotDirectory = {
      get: () => undefined,
      add: (doc, slot) => {
        (doc as SearchDocument & { slot: number }).slot = slot;
      },
      move: () => undefined,
      delete: () => undefined,
    };
    const searcher = createLinkedBm25Searcher({}, slots);
    return floor((record) => {
      searcher.add(record);
    });
  },
};

const cpuMicros = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

console.log(`registration parts at ${SIZE} tools — ${new Date().toISOString()}, load ${load()}`);
const samples = new Map<string, number[]>();
// Round 0 warms every part up and is not counted.
for (let round = 0; round <= ROUNDS; round++) {
  for (const [name, run] of Object.entries(parts)) {
    gc();
    gc();
    const start = cpuMicros();
    run();
    const perTool = (cpuMicros() - start) / SIZE;
    if (round > 0) samples.set(name, [...(samples.get(name) ?? []), perTool]);
  }
}
const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[values.length >> 1] ?? Number.NaN;
console.table(
  [...samples].map(([part, values]) => ({
    part,
    'CPU µs a tool, median': median(values).toFixed(2),
    'min–max': `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`,
  })),
);
console.log(`load average at end: ${load()}`);
