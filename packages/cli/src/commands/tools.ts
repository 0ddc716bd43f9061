import { showControls, ToolError, type Toolkit } from '@toolplane/toolkit';
import { MAX_QUERY_LENGTH } from '@toolplane/toolindex';
import { didYouMean } from '@toolplane/toolmodel';
import { quoted } from '@toolplane/toolmodel/text';
import type { Command } from 'commander';
import { parseArgs } from '../args.js';
import { isAllowed } from '../config.js';
import { formatDuration, type Output } from '../output.js';
import { registerPinCommands } from './pins.js';
import {
  firstLine,
  findTool,
  namespaceOf,
  parseCount,
  printValue,
  progressText,
  readValues,
  warnErrors,
  withToolkit,
  type CommandContext,
  type ToolItem,
} from './shared.js';

// list, search and describe run no tool and validate nothing: the compiled validator (ajv) is
// not worth loading for them.
const LISTS = { validator: 'default' } as const;
// list and search show tools alone: the servers' prompts and resources are not fetched for them.
// (describe and call keep every list, to tell a prompt's or a resource's name from a tool's.)
const TOOLS_ONLY = { ...LISTS, lists: ['tools'] } as const;

/** `toolplane tools list|search|describe|call`, under the `tools` command. */
export function registerTools(tools: Command, context: CommandContext): void {
  const { output, config } = context;
  tools
    .command('list')
    .description('list every tool')
    .option('-n, --namespace <ns>', 'only this namespace')
    .action(async (options: { namespace?: string }) => {
      await withToolkit(context, await config(), TOOLS_ONLY, async ({ toolkit }, cfg) => {
        if (options.namespace !== undefined) knownNamespace(toolkit, options.namespace);
        const result = await toolkit.list({
          type: 'tool',
          ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
          signal: context.signal,
        });
        warnErrors(output, result.errors, toolkit);
        const items = result.tools.filter((item) =>
          isAllowed(cfg.filter[item.namespace], item.tool),
        );
        if (output.json) {
          output.data({ tools: items.map(toolSummary), errors: result.errors });
          return;
        }
        output.table(
          ['TOOL', 'DESCRIPTION'],
          items.map((item) => [output.color.cyan(item.id), firstLine(item.tool.description)]),
          'no tools',
        );
      });
    });
  tools
    .command('search')
    .description('find tools by what they do')
    .argument('<query...>', 'words describing the task')
    .option('-l, --limit <n>', 'at most this many results (1-100)', parseCount, 10)
    .action(async (words: string[], options: { limit: number }) => {
      await withToolkit(
        context,
        await config(),
        { ...TOOLS_ONLY, search: true },
        async ({ toolkit }, cfg) => {
          const query = words.join(' ');
          const page = await toolkit.search(query, { limit: 100, signal: context.signal });
          const results = page.results
            .filter((r) => isAllowed(cfg.filter[r.namespace ?? ''], r))
            .slice(0, options.limit);
          if (output.json) {
            output.data({
              query,
              results: results.map((r) => ({
                id: r.id,
                namespace: r.namespace,
                name: r.name,
                ...(r.title === undefined ? {} : { title: r.title }),
                description: r.shortDescription,
                score: r.score,
              })),
            });
            return;
          }
          output.table(
            ['TOOL', 'SCORE', 'DESCRIPTION'],
            results.map((r) => [
              output.color.cyan(r.id),
              r.score.toFixed(2),
              firstLine(r.shortDescription),
            ]),
            `no tool matches ${shownQuery(query)}`,
          );
        },
      );
    });
  tools
    .command('describe')
    .description("show a tool's description and parameters")
    .argument('<tool>', 'ns:name, ns.name or a bare name')
    .action(async (key: string) => {
      await withToolkit(
        context,
        await config(),
        { ...LISTS, only: namespaceOf(key) },
        async ({ toolkit }, cfg) => {
          const item = await findTool(toolkit, cfg, key, context.signal);
          describeTool(output, item);
        },
      );
    });
  tools
    .command('call')
    .description('call a tool: toolplane tools call builtin:date_add date=2025-01-31 months=1')
    .argument('<tool>', 'ns:name, ns.name or a bare name')
    .argument(
      '[args...]',
      'key=value arguments (numbers, booleans and JSON are read by the schema); key=@- reads standard input, key=@FILE a file',
    )
    .option('-a, --args <json>', 'arguments as a JSON object')
    .action(async (key: string, pairs: string[], options: { args?: string }) => {
      await withToolkit(
        context,
        await config(),
        { only: namespaceOf(key) },
        async ({ toolkit }, cfg) => {
          const item = await findTool(toolkit, cfg, key, context.signal);
          const input = parseArgs({
            pairs: await readValues(context, pairs),
            schema: item.tool.inputSchema,
            ...(options.args === undefined ? {} : { json: options.args }),
          });
          const spinner = output.spinner(`calling ${item.id}`);
          const started = performance.now();
          try {
            const result = await toolkit.callTool(item.id, input, {
              signal: context.signal,
              onProgress: (event) => {
                spinner.update(progressText(item.id, event));
              },
            });
            const durationMs = performance.now() - started;
            spinner.stop();
            if (output.json) {
              output.data({
                tool: item.id,
                durationMs: Math.round(durationMs * 1000) / 1000,
                result: result.structured ?? null,
                ...(result.mcpResult === undefined ? {} : { content: result.mcpResult.content }),
              });
              return;
            }
            printValue(output, result.structured);
            output.say(output.errColor.dim(`${item.id} answered in ${formatDuration(durationMs)}`));
          } finally {
            spinner.stop();
          }
        },
      );
    });
  registerPinCommands(tools, context);
}

function toolSummary(item: ToolItem) {
  const { tool } = item;
  return {
    id: item.id,
    namespace: item.namespace,
    name: item.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
  };
}

function describeTool(output: Output, item: ToolItem): void {
  const { tool } = item;
  if (output.json) {
    output.data({ id: item.id, ...tool });
    return;
  }
  const c = output.color;
  const title = tool.title === undefined ? '' : `  ${showControls(tool.title)}`;
  output.out(`${c.bold(c.cyan(item.id))}${title}`);
  if (tool.description !== undefined) output.out(`\n${showControls(tool.description)}`);
  const schema = tool.inputSchema as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  // Every part of the schema is the server's text: shown, never obeyed by the terminal.
  const rows = Object.entries(schema.properties ?? {}).map(([name, prop]) => [
    c.cyan(showControls(name)),
    showControls(typeOf(prop)),
    required.has(name) ? 'yes' : '',
    firstLine(typeof prop.description === 'string' ? prop.description : undefined) +
      ('default' in prop ? c.dim(` (default ${showControls(JSON.stringify(prop.default))})`) : ''),
  ]);
  output.out();
  output.table(['ARGUMENT', 'TYPE', 'REQUIRED', 'DESCRIPTION'], rows, 'takes no arguments');
  const hints = Object.entries(tool.annotations ?? {})
    .filter(([, v]) => v === true)
    .map(([k]) => showControls(k));
  if (tool.outputSchema !== undefined)
    output.out(`\n${c.dim('returns structured content (see --json for its schema)')}`);
  if (hints.length > 0) output.out(c.dim(`hints: ${hints.join(', ')}`));
}

function typeOf(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (typeof schema.type === 'string') {
    if (schema.type === 'array' && typeof schema.items === 'object' && schema.items !== null) {
      return `${typeOf(schema.items as Record<string, unknown>)}[]`;
    }
    return schema.type;
  }
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list))
      return list.map((s) => typeOf(s as Record<string, unknown>)).join(' | ');
  }
  return 'any';
}

/**
 * Refuses a `--namespace` no source of the toolkit has (a typo would list nothing, quietly).
 *
 * @throws {ToolError} `not_found` with the known namespaces and the nearest one.
 */
function knownNamespace(toolkit: Toolkit, namespace: string): void {
  // A server's namespace is known while it cannot start too: its failure is warned of.
  const servers = toolkit.connectors().map((status) => status.namespace);
  if (servers.includes(namespace)) return;
  if (toolkit.index.listTools({ namespace, limit: 1 }).entries.length > 0) return;
  const known = new Set([
    ...servers,
    ...toolkit.index.listNamespaces({ limit: 100 }).namespaces.map((info) => info.namespace),
  ]);
  const near = didYouMean(namespace, known);
  throw new ToolError(
    'not_found',
    `no namespace "${namespace}" has tools (namespaces: ${[...known].sort().join(', ')})${near === undefined ? '' : `; did you mean "${near}"?`}`,
  );
}

/** Characters of a query the "no tool matches" line quotes. */
const QUOTED_QUERY = 60;

/**
 * `query` as the "no tool matches" line quotes it: whole when short, else its start, with its
 * length and the part search reads (a query is searched by its first MAX_QUERY_LENGTH
 * characters), so a pasted document is not printed back.
 */
function shownQuery(query: string): string {
  if (query.length <= QUOTED_QUERY) return quoted(query);
  const read =
    query.length > MAX_QUERY_LENGTH
      ? `; search reads the first ${MAX_QUERY_LENGTH.toLocaleString('en')}`
      : '';
  return `${quoted(query, QUOTED_QUERY)} (${query.length.toLocaleString('en')} characters${read})`;
}
