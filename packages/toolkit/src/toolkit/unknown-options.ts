import { optionKeys, refuseUnknownOptions, rejectedWith } from '@toolplane/toolmodel';
import type { ListRequest } from './items.js';
import type { ReadOptions } from './options.js';
import type {
  CallOptions,
  CompleteOptions,
  ToolkitOptions,
  ToolkitSearchOptions,
} from './types.js';

// Every key of ToolkitOptions: the compiler keeps this list and the type in step.
const KNOWN = optionKeys<ToolkitOptions>({
  tools: true,
  prompts: true,
  resources: true,
  resourceTemplates: true,
  delegate: true,
  store: true,
  pinning: true,
  tracer: true,
  logger: true,
  maxCallDepth: true,
  middleware: true,
  observers: true,
  searcher: true,
  approval: true,
  validator: true,
  secrets: true,
  upstreamRequests: true,
  connectorDefaults: true,
  createConnector: true,
  sessionConnections: true,
});

// Keys people pass by analogy with other tools, and where that wish goes instead.
const INSTEAD: Readonly<Record<string, string>> = {
  connectors: 'add each upstream server with toolkit.addConnector(source, { namespace })',
  mcpServers: 'add each upstream server with toolkit.addConnector(source, { namespace })',
};

/**
 * Refuses an options object with a key `createToolkit` does not know. From JavaScript (or a
 * spread of a wider object) a misspelled or guessed key would otherwise be ignored: a toolkit
 * told `connectors: [...]` would start with no upstream server and no error.
 *
 * @throws {ToolError} `invalid_argument` naming the key, with the nearest known one.
 */
export function refuseUnknownToolkitOptions(options: object): void {
  refuseUnknownOptions(options, KNOWN, 'createToolkit', { instead: INSTEAD });
}

const SIGNAL_ONLY = optionKeys<{ signal?: AbortSignal }>({ signal: true });
const CALL = optionKeys<CallOptions>({
  signal: true,
  resources: true,
  keep: true,
  onProgress: true,
  meta: true,
  session: true,
  onUpstreamRequest: true,
  sessionKey: true,
  learningKey: true,
});
const READ = optionKeys<ReadOptions>({ signal: true, sessionKey: true });

// The keys each method takes: the compiler keeps these lists and the types in step.
const METHOD_OPTIONS = {
  call: CALL,
  callTool: CALL,
  getPrompt: READ,
  readResource: READ,
  search: optionKeys<ToolkitSearchOptions>({
    cursor: true,
    limit: true,
    namespace: true,
    tags: true,
    signal: true,
    sessionKey: true,
  }),
  list: optionKeys<ListRequest>({
    namespace: true,
    type: true,
    name: true,
    limit: true,
    offset: true,
    cursor: true,
    signal: true,
  }),
  lookup: SIGNAL_ONLY,
  run: SIGNAL_ONLY,
  ready: SIGNAL_ONLY,
  complete: optionKeys<CompleteOptions>({ arguments: true, signal: true }),
} as const;

/**
 * Refuses options a toolkit method does not take. From JavaScript a misspelled key
 * (`call(tool, input, { kep: true })`, `search(q, { limt: 5 })`) would otherwise be ignored
 * without a word: the result not kept, the default page size. Allocates nothing for options it
 * accepts, so a call pays a few nanoseconds.
 *
 * @throws {ToolError} `invalid_argument` naming the key and the nearest known one.
 */
export function refuseUnknownMethodOptions(
  options: unknown,
  method: keyof typeof METHOD_OPTIONS,
): void {
  refuseUnknownOptions(options, METHOD_OPTIONS[method], method);
}

/**
 * {@link refuseUnknownMethodOptions} for a method that answers with a promise: the refusal as
 * a rejected promise (a caller awaiting it sees the error where it sees every other), or
 * `undefined` when the options are fine.
 */
export function refusedMethodOptions(
  options: unknown,
  method: keyof typeof METHOD_OPTIONS,
): Promise<never> | undefined {
  try {
    refuseUnknownMethodOptions(options, method);
    return undefined;
  } catch (error) {
    return rejectedWith(error);
  }
}
