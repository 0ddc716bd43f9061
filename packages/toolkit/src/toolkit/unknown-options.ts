import { optionKeys, refuseUnknownOptions } from '@toolplane/toolmodel';
import type { ToolkitOptions } from './types.js';

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
