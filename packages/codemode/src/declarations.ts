import type { Tool } from '@toolplane/toolmodel';
import { identifierOf, RESERVED_TOOL_NAMES } from './names.js';
import type { ApiTool } from './protocol.js';
import { docBlock, docText, propertyKey, SchemaConverter } from './schema-types.js';

/** One tool to declare: where it sits in the API and its definition. */
export interface DeclaredTool {
  readonly api: ApiTool;
  readonly tool: Tool;
}

// What every program has beside `tools`; kept in step with the prelude's `search` and `console`.
const PREAMBLE = `/** A tool {@link search} found: call it as \`call\` says, e.g. \`await tools.ns.name({ ... })\`. */
interface ToolSummary {
  /** The tool's canonical ID (\`namespace:name\`). */
  id: string;
  title?: string;
  description: string;
  tags: string[];
  /** Where the tool sits in the API, e.g. \`tools.github.create_issue\`. */
  call: string;
}

/** Finds tools by what they do, among those this program may call. */
declare function search(query: string, options?: { limit?: number }): Promise<ToolSummary[]>;

/** Lines written here come back beside the program's value, in its \`logs\`. */
declare const console: {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  debug(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
};

`;

function hasRequired(schema: Tool['inputSchema']): boolean {
  return Array.isArray(schema.required) && schema.required.length > 0;
}

function toolMember(entry: DeclaredTool, converter: SchemaConverter, indent: string): string {
  const { tool, api } = entry;
  const input = converter.typeOf(tool.inputSchema, indent);
  const output =
    tool.outputSchema === undefined ? 'unknown' : converter.typeOf(tool.outputSchema, indent);
  const doc = [
    ...(tool.title === undefined ? [] : [...docText(tool.title), '']),
    ...docText(tool.description ?? ''),
    '',
    `Tool \`${api.id}\`.${tool.outputSchema === undefined ? ' Resolves to its text (parsed when it is JSON).' : ''}`,
    ...(RESERVED_TOOL_NAMES.includes(identifierOf(tool.name))
      ? [
          `Called \`${api.name}\` here, not \`${identifierOf(tool.name)}\`: \`await\` would take a namespace object with a \`${identifierOf(tool.name)}\` function for a promise.`,
        ]
      : []),
  ];
  const optional = hasRequired(tool.inputSchema) ? '' : '?';
  return `${docBlock(doc, indent)}${indent}${propertyKey(api.name)}(args${optional}: ${input}): Promise<${output}>;\n`;
}

/**
 * TypeScript declarations of the API a program sees: `tools` with one object per namespace and
 * one documented async function per tool (arguments typed from the input schema, the value from
 * the output schema, `unknown` without one), then the types the schemas' `$ref`s name; with
 * `preamble` also `search` and `console`.
 */
export function declarationsOf(
  tools: readonly DeclaredTool[],
  options: { readonly preamble?: boolean } = {},
): string {
  const converter = new SchemaConverter('Def');
  const groups = new Map<string, DeclaredTool[]>();
  for (const entry of tools) {
    const group = groups.get(entry.api.namespace) ?? [];
    group.push(entry);
    groups.set(entry.api.namespace, group);
  }
  let text = options.preamble === false ? '' : PREAMBLE;
  text +=
    '/** The tools this program may call, by namespace: `await tools.<namespace>.<tool>(args)`. */\n';
  text += 'declare const tools: {\n';
  for (const [namespace, group] of groups) {
    text += docBlock([`Tools of the namespace \`${namespace}\`.`], '  ');
    text += `  readonly ${propertyKey(namespace)}: {\n`;
    for (const entry of group) text += toolMember(entry, converter, '    ');
    text += '  };\n';
  }
  text += '};\n';
  const aliases = converter.aliases();
  return aliases === '' ? text : `${text}\n${aliases}`;
}
