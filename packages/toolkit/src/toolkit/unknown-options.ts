import { didYouMean, ToolError } from '@toolplane/toolmodel';
import type { ToolkitOptions } from './types.js';

// Every key of ToolkitOptions: the compiler keeps this list and the type in step.
const KNOWN = Object.keys({
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
} satisfies Record<keyof ToolkitOptions, true>);

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
  for (const key of Object.keys(options)) {
    if (KNOWN.includes(key)) continue;
    const instead = INSTEAD[key];
    const near = didYouMean(key, KNOWN);
    const hint =
      instead ??
      (near === undefined ? `known options: ${KNOWN.join(', ')}` : `did you mean "${near}"?`);
    throw new ToolError('invalid_argument', `createToolkit: unknown option "${key}"; ${hint}`);
  }
}
