import { readFile, writeFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { serveHttp, serveStdio, type GatewayOptions, type ServedGateway } from '@toolplane/gateway';
import {
  parsePrompt,
  readResource,
  ToolError,
  withUri,
  type ToolkitEvent,
  type ToolkitItem,
} from '@toolplane/toolkit';
import { Command, CommanderError, Option } from 'commander';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { parseArgs } from './args.js';
import { isAllowed, loadConfig, type CliConfig } from './config.js';
import { openToolkit, openStore, type OpenToolkit } from './open.js';
import { formatDuration, Output, type OutputStream } from './output.js';

/** Where {@link runCli} reads and writes; the process's own streams by default. */
export interface RunCliOptions {
  readonly stdout?: OutputStream;
  readonly stderr?: OutputStream;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** Aborting it stops the command (as Ctrl-C does): servers are closed, children ended. */
  readonly signal?: AbortSignal;
  /** How to start this CLI again, for the `mcpServers` snippet `serve` prints. */
  readonly self?: readonly string[];
}

interface Context {
  readonly output: Output;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal: AbortSignal;
  readonly self: readonly string[];
}

interface GlobalOptions {
  config?: string;
  json?: boolean;
}

/**
 * Runs the `toolplane` command line with `argv` (without the node and script words) and
 * resolves to the exit code: 0 ok, 2 bad config or usage, 3 not found, 4 invalid arguments,
 * 5 an upstream server or store that cannot be reached, 1 anything else. Never throws.
 */
export async function runCli(
  argv: readonly string[],
  options: RunCliOptions = {},
): Promise<number> {
  const env = options.env ?? process.env;
  const json = argv.includes('--json');
  const output = new Output({
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    json,
    env,
  });
  const context: Context = {
    output,
    cwd: options.cwd ?? process.cwd(),
    env,
    signal: options.signal ?? new AbortController().signal,
    self: options.self ?? [process.execPath, ...process.execArgv, process.argv[1] ?? 'toolplane'],
  };
  let code = 0;
  const program = buildProgram(context, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    return output.fail(error);
  }
}

function buildProgram(context: Context, setCode: (code: number) => void): Command {
  const { output } = context;
  const program = new Command('toolplane')
    .description(
      'An aggregating MCP gateway: builtin tools, your MCP servers, prompts and resources behind one endpoint.',
    )
    .option('-c, --config <file>', 'config file (default: toolplane.config.{yaml,yml,json} here)')
    .option('--json', 'print machine-readable JSON on stdout')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => {
        output.out(text.trimEnd());
      },
      writeErr: (text) => {
        output.say(text.trimEnd());
      },
      outputError: (text, write) => {
        write(output.errColor.red(text));
      },
    });
  const globals = (): GlobalOptions => program.opts<GlobalOptions>();
  const config = () => loadCliConfig(context, globals());

  // -- serve -------------------------------------------------------------------------------
  program
    .command('serve')
    .description('start the gateway (stdio by default; --http for Streamable HTTP)')
    .addOption(new Option('--stdio', 'serve MCP over stdin/stdout').conflicts('http'))
    .option('--http', 'serve MCP over Streamable HTTP')
    .option('--host <host>', 'HTTP host (default 127.0.0.1)')
    .option('--port <port>', 'HTTP port (0 picks a free one)', parsePort)
    .option('--token <token>', 'require Authorization: Bearer <token> over HTTP')
    .action(async (options: ServeOptions) => {
      setCode(await serve(context, await config(), options));
    });

  // -- tools -------------------------------------------------------------------------------
  const tools = program.command('tools').description('list, search, describe and call tools');
  tools
    .command('list')
    .description('list every tool')
    .option('-n, --namespace <ns>', 'only this namespace')
    .action(async (options: { namespace?: string }) => {
      await withToolkit(context, await config(), {}, async ({ toolkit }, cfg) => {
        const result = await toolkit.list({
          type: 'tool',
          ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
          signal: context.signal,
        });
        warnErrors(output, result.errors);
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
      await withToolkit(context, await config(), {}, async ({ toolkit }, cfg) => {
        const query = words.join(' ');
        const page = await toolkit.index.search(query, { limit: 100, signal: context.signal });
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
          results.map((r) => [output.color.cyan(r.id), r.score.toFixed(2), r.shortDescription]),
          `no tool matches "${query}"`,
        );
      });
    });
  tools
    .command('describe')
    .description("show a tool's description and parameters")
    .argument('<tool>', 'ns:name, ns.name or a bare name')
    .action(async (key: string) => {
      await withToolkit(
        context,
        await config(),
        { only: namespaceOf(key) },
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
      'key=value arguments (numbers, booleans and JSON are read by the schema)',
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
            pairs,
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

  // -- prompts -----------------------------------------------------------------------------
  const prompts = program.command('prompts').description('list, render, add and remove prompts');
  prompts
    .command('list')
    .description('list every prompt')
    .action(async () => {
      await withToolkit(context, await config(), {}, async ({ toolkit }) => {
        const result = await toolkit.list({ type: 'prompt', signal: context.signal });
        warnErrors(output, result.errors);
        const items = result.prompts.map(({ namespace, name, prompt }) => ({
          id: `${namespace}:${name}`,
          namespace,
          name,
          ...(prompt.mcp.title === undefined ? {} : { title: prompt.mcp.title }),
          ...(prompt.mcp.description === undefined ? {} : { description: prompt.mcp.description }),
          arguments: (prompt.mcp.arguments ?? []).map((a) => ({
            name: a.name,
            required: a.required === true,
            ...(a.description === undefined ? {} : { description: a.description }),
          })),
        }));
        if (output.json) {
          output.data({ prompts: items, errors: result.errors });
          return;
        }
        output.table(
          ['PROMPT', 'ARGUMENTS', 'DESCRIPTION'],
          items.map((p) => [
            output.color.cyan(p.id),
            p.arguments.map((a) => (a.required ? a.name : `[${a.name}]`)).join(' '),
            firstLine(p.description ?? p.title),
          ]),
          'no prompts',
        );
      });
    });
  prompts
    .command('get')
    .description('render a prompt with arguments')
    .argument('<name>', 'ns:name or a bare name')
    .argument('[args...]', 'key=value arguments')
    .option('-a, --args <json>', 'arguments as a JSON object')
    .action(async (key: string, pairs: string[], options: { args?: string }) => {
      await withToolkit(
        context,
        await config(),
        { only: namespaceOf(key) },
        async ({ toolkit }) => {
          const item = await toolkit.lookup(key, { signal: context.signal });
          if (item.type !== 'prompt') {
            throw new ToolError(
              'not_found',
              `"${key}" is a ${item.type}, not a prompt; see toolplane prompts list`,
            );
          }
          const input = parseArgs({
            pairs,
            schema: item.prompt.prompt?.input,
            ...(options.args === undefined ? {} : { json: options.args }),
          });
          const rendered = await item.prompt.render(input, { signal: context.signal });
          if (output.json) {
            output.data({
              prompt: `${item.namespace}:${item.name}`,
              text: rendered.text,
              messages: rendered.messages,
            });
            return;
          }
          output.out(rendered.text);
        },
      );
    });
  prompts
    .command('add')
    .description('add (or replace) a markdown prompt in the user store')
    .argument('<file>', 'a markdown file with optional YAML front matter')
    .action(async (file: string) => {
      const cfg = await config();
      const path = resolve(context.cwd, file);
      const text = await readFile(path, 'utf8').catch((error: unknown) => {
        throw new ToolError('not_found', `cannot read ${path}: ${(error as Error).message}`, {
          cause: error,
        });
      });
      const prompt = parsePrompt(text, { filename: path });
      await withStore(cfg, async (store) => {
        await store.putPrompt(prompt, { signal: context.signal });
      });
      if (output.json) output.data({ added: { namespace: 'user', name: prompt.name } });
      else output.say(`added prompt ${output.errColor.cyan(`user:${prompt.name}`)}`);
    });
  prompts
    .command('rm')
    .description('remove a prompt from the user store')
    .argument('<name>', 'the prompt name (user: prefix optional)')
    .action(async (key: string) => {
      const name = key.replace(/^user[:.]/, '');
      const removed = await withStore(await config(), (store) =>
        store.deletePrompt(name, { signal: context.signal }),
      );
      if (!removed)
        throw new ToolError(
          'not_found',
          `the user store has no prompt "${name}"; see toolplane prompts list`,
        );
      if (output.json) output.data({ removed: { namespace: 'user', name } });
      else output.say(`removed prompt user:${name}`);
    });

  // -- resources ---------------------------------------------------------------------------
  const resources = program
    .command('resources')
    .description('list, read, add and remove resources');
  resources
    .command('list')
    .description('list every resource')
    .action(async () => {
      await withToolkit(context, await config(), {}, async ({ toolkit }) => {
        const result = await toolkit.list({ type: 'resource', signal: context.signal });
        warnErrors(output, result.errors);
        const items = result.resources.map(({ namespace, resource }) => ({
          namespace,
          ...resource,
        }));
        if (output.json) {
          output.data({ resources: items, errors: result.errors });
          return;
        }
        output.table(
          ['URI', 'NAMESPACE', 'TYPE', 'SIZE', 'DESCRIPTION'],
          items.map((r) => [
            output.color.cyan(r.uri),
            r.namespace,
            r.mimeType ?? '',
            r.size === undefined ? '' : formatBytes(r.size),
            firstLine(r.description ?? r.title),
          ]),
          'no resources',
        );
      });
    });
  resources
    .command('read')
    .description("print a resource's contents")
    .argument('<uri>', 'the URI (uri#ns to pick a namespace) or a name')
    .option('-o, --out <file>', 'write the contents to a file (for binary resources)')
    .action(async (key: string, options: { out?: string }) => {
      await withToolkit(context, await config(), {}, async ({ toolkit }) => {
        const found = await toolkit.readResource(key, { signal: context.signal });
        if (options.out !== undefined) {
          const path = resolve(context.cwd, options.out);
          await writeFile(
            path,
            found.blob === undefined ? found.text : Buffer.from(found.blob, 'base64'),
          );
          if (output.json) output.data({ uri: found.uri, written: path });
          else output.say(`wrote ${found.uri} to ${path}`);
          return;
        }
        if (output.json) {
          output.data(found);
          return;
        }
        if (found.text !== undefined) output.out(found.text);
        else
          throw new ToolError(
            'invalid_argument',
            `${found.uri} is binary (${found.mimeType ?? 'unknown type'}, ${formatBytes(Buffer.from(found.blob, 'base64').length)}); use --out FILE or --json`,
          );
      });
    });
  resources
    .command('add')
    .description('add (or replace) a file as a resource in the user store')
    .argument('<file>', 'any file: text is kept as text, anything else as bytes')
    .option('--uri <uri>', 'its URI (default toolplane://resources/<name>)')
    .option('--name <name>', 'its name (default: from the file name)')
    .option('--description <text>', 'what it is, for people and models')
    .action(
      async (file: string, options: { uri?: string; name?: string; description?: string }) => {
        const cfg = await config();
        const read = await readResource(resolve(context.cwd, file), {
          signal: context.signal,
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.description === undefined ? {} : { description: options.description }),
        });
        const found = withUri(read, options.uri ?? `toolplane://resources/${read.name}`);
        const info = await withStore(cfg, (store) =>
          store.putResource(found, { signal: context.signal }),
        );
        if (output.json) output.data({ added: { namespace: 'user', ...info } });
        else
          output.say(
            `added resource ${output.errColor.cyan(info.uri)} (${formatBytes(info.size ?? 0)})`,
          );
      },
    );
  resources
    .command('rm')
    .description('remove a resource from the user store')
    .argument('<uri>', 'its URI')
    .action(async (uri: string) => {
      const removed = await withStore(await config(), (store) =>
        store.deleteResource(uri, { signal: context.signal }),
      );
      if (!removed)
        throw new ToolError(
          'not_found',
          `the user store has no resource "${uri}"; see toolplane resources list`,
        );
      if (output.json) output.data({ removed: { namespace: 'user', uri } });
      else output.say(`removed resource ${uri}`);
    });

  // -- chain -------------------------------------------------------------------------------
  program
    .command('chain')
    .description('run tools one after another')
    .command('run')
    .description('run a chain file: a YAML or JSON list of { tool, args?, usePrevious? }')
    .argument('<file>', 'the chain file')
    .action(async (file: string) => {
      const steps = await loadChain(resolve(context.cwd, file));
      await withToolkit(context, await config(), {}, async ({ toolkit }, cfg) => {
        const resolved = [];
        for (const step of steps) {
          const item = await findTool(toolkit, cfg, step.tool, context.signal);
          resolved.push({
            toolId: item.id,
            ...(step.args === undefined ? {} : { args: step.args }),
            ...(step.usePrevious === undefined ? {} : { usePrevious: step.usePrevious }),
          });
        }
        const spinner = output.spinner(`running ${resolved.length} steps`);
        const times: number[] = [];
        let last = performance.now();
        try {
          const { result, steps: results } = await toolkit.runner.runChain(resolved, {
            signal: context.signal,
            onProgress: (event) => {
              const now = performance.now();
              times.push(now - last);
              last = now;
              spinner.update(
                `step ${event.progress}/${event.total ?? resolved.length}: ${event.toolId}`,
              );
            },
          });
          spinner.stop();
          if (output.json) {
            output.data({
              steps: results.map((r, i) => ({
                tool: r.toolId,
                durationMs: Math.round((times[i] ?? 0) * 1000) / 1000,
                result: r.structured ?? null,
              })),
              result: result.structured ?? null,
            });
            return;
          }
          results.forEach((r, i) => {
            output.say(
              `${output.errColor.green('✓')} ${i + 1}. ${r.toolId} ${output.errColor.dim(formatDuration(times[i] ?? 0))}`,
            );
          });
          printValue(output, result.structured);
        } finally {
          spinner.stop();
        }
      });
    });

  // -- connectors --------------------------------------------------------------------------
  program
    .command('connectors')
    .description('the upstream MCP servers')
    .command('status')
    .description('start every upstream server and report how each is doing')
    .action(async () => {
      const cfg = await config();
      await withToolkit(context, cfg, { quiet: true }, ({ toolkit }) => {
        const rows = toolkit.connectors().map((status) => {
          const connector = toolkit.connector(status.namespace);
          const configured = cfg.connectors.find((c) => c.namespace === status.namespace);
          const lists = connector?.lists;
          return {
            namespace: status.namespace,
            state: status.state,
            transport: configured?.transport ?? 'stdio',
            source: configured?.display ?? '',
            tools: lists?.tools.length ?? 0,
            prompts: lists?.prompts.length ?? 0,
            resources: lists?.resources.length ?? 0,
            ...(status.pid === undefined ? {} : { pid: status.pid }),
            ...(status.error === undefined ? {} : { error: status.error }),
          };
        });
        if (output.json) output.data({ connectors: rows });
        else
          output.table(
            ['NAMESPACE', 'STATE', 'TOOLS', 'PROMPTS', 'RESOURCES', 'SOURCE'],
            rows.map((r) => [
              output.color.cyan(r.namespace),
              r.state === 'connected' ? output.color.green(r.state) : output.color.red(r.state),
              String(r.tools),
              String(r.prompts),
              String(r.resources),
              r.error === undefined ? r.source : `${r.source}\n${output.color.red(r.error)}`,
            ]),
            'no connectors in the config',
          );
        if (rows.some((r) => r.state !== 'connected')) setCode(5);
      });
    });

  return program;
}

// -- helpers ---------------------------------------------------------------------------------

async function loadCliConfig(context: Context, globals: GlobalOptions): Promise<CliConfig> {
  const cfg = await loadConfig({
    cwd: context.cwd,
    env: context.env,
    signal: context.signal,
    ...(globals.config === undefined ? {} : { file: globals.config }),
  });
  context.output.useSecrets(cfg.secrets);
  return cfg;
}

/** Opens the toolkit (starting the connectors it needs), runs `work`, and always closes it. */
async function withToolkit(
  context: Context,
  cfg: CliConfig,
  options: { only?: string; quiet?: boolean },
  work: (opened: OpenToolkit, cfg: CliConfig) => Promise<void> | void,
): Promise<void> {
  const { output } = context;
  const only = options.only;
  const needed =
    only !== undefined && cfg.connectors.some((c) => c.namespace === only) ? [only] : 'all';
  const spinner = output.spinner('starting the MCP servers');
  let opened: OpenToolkit;
  try {
    opened = await openToolkit(cfg, { connectors: needed, signal: context.signal });
  } finally {
    spinner.stop();
  }
  try {
    if (options.quiet !== true) {
      for (const status of opened.toolkit.connectors()) {
        if (status.state !== 'connected') {
          output.say(
            `${output.errColor.yellow('warning')} ${status.namespace} is ${status.state}: ${status.error ?? 'not connected'}`,
          );
        }
      }
    }
    await work(opened, cfg);
  } finally {
    await opened.close();
  }
}

async function withStore<T>(
  cfg: CliConfig,
  work: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>,
): Promise<T> {
  const store = await openStore(cfg.store);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

type ToolItem = Extract<ToolkitItem, { type: 'tool' }>;

async function findTool(
  toolkit: OpenToolkit['toolkit'],
  cfg: CliConfig,
  key: string,
  signal: AbortSignal,
): Promise<ToolItem> {
  const item = await toolkit.lookup(key, { signal });
  if (item.type !== 'tool') {
    throw new ToolError(
      'not_found',
      `"${key}" is a ${item.type}, not a tool; see toolplane tools list`,
    );
  }
  if (!isAllowed(cfg.filter[item.namespace], item.tool)) {
    throw new ToolError(
      'not_found',
      `tool "${item.id}" is filtered out by the "tools" filter of ${item.namespace} in the config`,
    );
  }
  return item;
}

function namespaceOf(key: string): string | undefined {
  const match = /^([A-Za-z0-9_-]{1,64})[:.]/.exec(key);
  return match?.[1];
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
  output.out(`${c.bold(c.cyan(item.id))}${tool.title === undefined ? '' : `  ${tool.title}`}`);
  if (tool.description !== undefined) output.out(`\n${tool.description}`);
  const schema = tool.inputSchema as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties ?? {}).map(([name, prop]) => [
    c.cyan(name),
    typeOf(prop),
    required.has(name) ? 'yes' : '',
    firstLine(typeof prop.description === 'string' ? prop.description : undefined) +
      ('default' in prop ? c.dim(` (default ${JSON.stringify(prop.default)})`) : ''),
  ]);
  output.out();
  output.table(['ARGUMENT', 'TYPE', 'REQUIRED', 'DESCRIPTION'], rows, 'takes no arguments');
  const hints = Object.entries(tool.annotations ?? {})
    .filter(([, v]) => v === true)
    .map(([k]) => k);
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

function printValue(output: Output, value: unknown): void {
  if (value === undefined) return;
  output.out(typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

function progressText(
  id: string,
  event: { progress: number; total?: number; message?: string },
): string {
  const share =
    event.total === undefined || event.total <= 0
      ? `${event.progress}`
      : `${bar(event.progress / event.total)} ${Math.round((event.progress / event.total) * 100)}%`;
  return `${id} ${share}${event.message === undefined ? '' : ` ${event.message}`}`;
}

function bar(fraction: number, width = 20): string {
  const filled = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

function warnErrors(
  output: Output,
  errors: readonly { namespace: string; message: string }[],
): void {
  if (output.json) return;
  for (const error of errors)
    output.say(`${output.errColor.yellow('warning')} ${error.namespace}: ${error.message}`);
}

function firstLine(text: string | undefined): string {
  return (text ?? '').trim().split('\n')[0] ?? '';
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ToolError('invalid_argument', `--port ${value}: must be an integer from 0 to 65535`);
  }
  return port;
}

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100) {
    throw new ToolError('invalid_argument', `--limit ${value}: must be an integer from 1 to 100`);
  }
  return n;
}

const chainSchema = z
  .array(
    z.strictObject({
      tool: z.string().min(1, 'must name a tool'),
      args: z.record(z.string(), z.unknown()).optional(),
      usePrevious: z.boolean().optional(),
    }),
  )
  .min(1, 'needs at least one step');

async function loadChain(path: string): Promise<z.infer<typeof chainSchema>> {
  let raw: unknown;
  try {
    const text = await readFile(path, 'utf8');
    raw = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ToolError(
      'invalid_argument',
      `cannot read the chain file ${path}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const steps =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'steps' in raw
      ? raw.steps
      : raw;
  const parsed = chainSchema.safeParse(steps);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.map(String).join('.') ?? '';
    throw new ToolError(
      'invalid_argument',
      `${path}: steps${at === '' ? '' : `.${at}`}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

// -- serve -----------------------------------------------------------------------------------

interface ServeOptions {
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: number;
  token?: string;
}

async function serve(context: Context, cfg: CliConfig, options: ServeOptions): Promise<number> {
  const { output } = context;
  const http = options.http === true;
  if (options.token !== undefined) cfg.secrets.add(options.token);
  const c = output.errColor;
  const live: { opened?: OpenToolkit } = {};
  const onEvent = (event: ToolkitEvent): void => {
    if (event.type !== 'state_change') return;
    const colour =
      event.state === 'connected' ? c.green : event.state === 'connecting' ? c.dim : c.red;
    const pid = live.opened?.toolkit.connector(event.namespace)?.pid;
    const detail =
      event.error !== undefined
        ? ` ${event.error.message}`
        : event.state === 'connected' && pid !== undefined
          ? c.dim(` (pid ${pid})`)
          : '';
    output.say(`${c.cyan(event.namespace)} ${colour(event.state)}${detail}`);
  };
  const opened = await openToolkit(cfg, { onEvent, wait: false, signal: context.signal });
  live.opened = opened;
  const gatewayOptions: GatewayOptions = {
    mode: cfg.mode,
    filter: cfg.filter,
    ...cfg.naming,
    ...(cfg.instructions === undefined ? {} : { instructions: cfg.instructions }),
    serverInfo: { name: 'toolplane', version: '0.0.0' },
  };
  let gateway: ServedGateway;
  const stopped = new AbortController();
  const stop = (): void => {
    stopped.abort();
  };
  context.signal.addEventListener('abort', stop, { once: true });
  if (context.signal.aborted) stop();
  try {
    if (http) {
      const token = options.token ?? cfg.http.token;
      const served = await serveHttp(opened.toolkit, {
        ...gatewayOptions,
        host: options.host ?? cfg.http.host,
        port: options.port ?? cfg.http.port,
        path: cfg.http.path,
        ...(token === undefined ? {} : { token }),
        ...(cfg.http.allowedOrigins === undefined
          ? {}
          : { allowedOrigins: cfg.http.allowedOrigins }),
        ...(cfg.http.stateless === undefined ? {} : { stateless: cfg.http.stateless }),
      });
      gateway = served;
      printHttpHelp(output, cfg, served.url.href, token !== undefined);
    } else {
      gateway = await serveStdio(opened.toolkit, gatewayOptions);
      process.stdin.once('end', stop);
      printStdioHelp(output, context, cfg);
    }
  } catch (error) {
    await opened.close();
    throw error;
  }
  if (!stopped.signal.aborted) {
    await new Promise<void>((resolve) => {
      stopped.signal.addEventListener('abort', () => {
        resolve();
      });
    });
  }
  output.say(c.dim('shutting down'));
  await gateway.close();
  await opened.close();
  output.say(c.dim('stopped'));
  return 0;
}

function printHttpHelp(output: Output, cfg: CliConfig, url: string, hasToken: boolean): void {
  const c = output.errColor;
  const header = hasToken ? ' --header "Authorization: Bearer $TOOLPLANE_TOKEN"' : '';
  output.say(`${c.green('toolplane gateway')} listening on ${c.bold(url)} (Streamable HTTP)`);
  output.say('');
  output.say('Try it with the MCP Inspector:');
  output.say(
    `  npx @modelcontextprotocol/inspector@0.15.0 --cli ${url} --transport http --method tools/list${header}`,
  );
  if (cfg.builtins && cfg.mode === 'tools') {
    const prefix =
      cfg.naming.transparent === 'builtin' ? '' : `builtin${cfg.naming.separator ?? '__'}`;
    output.say(
      `  npx @modelcontextprotocol/inspector@0.15.0 --cli ${url} --transport http --method tools/call --tool-name ${prefix}time_now --tool-arg timeZone=Europe/Paris${header}`,
    );
  }
  output.say('');
  output.say('Add it to Claude Desktop, Cursor or any MCP client (mcpServers):');
  const entry = hasToken
    ? { url, headers: { Authorization: 'Bearer ${TOOLPLANE_TOKEN}' } }
    : { url };
  output.say(indent(JSON.stringify({ mcpServers: { toolplane: entry } }, null, 2)));
  output.say('');
  output.say(c.dim('Ctrl-C stops the gateway and every server it started.'));
}

function printStdioHelp(output: Output, context: Context, cfg: CliConfig): void {
  const [command, ...args] = context.self;
  output.say(`${output.errColor.green('toolplane gateway')} serving MCP on stdio`);
  output.say('Add it to Claude Desktop, Cursor or any MCP client (mcpServers):');
  const entry = {
    command,
    args: [...args, 'serve', '--stdio', '--config', cfg.file ?? 'toolplane.config.yaml'],
  };
  output.say(indent(JSON.stringify({ mcpServers: { toolplane: entry } }, null, 2)));
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}
