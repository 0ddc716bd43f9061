import { Command, CommanderError } from 'commander';
import { registerChain } from './commands/chain.js';
import { registerConnectors } from './commands/connectors.js';
import { registerPrompts } from './commands/prompts.js';
import { registerResources } from './commands/resources.js';
import { registerServe } from './commands/serve.js';
import type { CommandContext } from './commands/shared.js';
import { registerTools } from './commands/tools.js';
import { loadConfig, type CliConfig } from './config.js';
import { Output, type OutputStream } from './output.js';

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

function buildProgram(base: Context, setCode: (code: number) => void): Command {
  const { output } = base;
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
  const context: CommandContext = {
    ...base,
    config: () => loadCliConfig(base, program.opts<GlobalOptions>()),
    setCode,
  };
  registerServe(program, context);
  registerTools(program, context);
  registerPrompts(program, context);
  registerResources(program, context);
  registerChain(program, context);
  registerConnectors(program, context);
  return program;
}

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
