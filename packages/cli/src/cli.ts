import { Command } from 'commander';
// The errors module alone: the rest of the tool model loads the MCP SDK's schemas.
import { ToolError } from '@toolplane/toolmodel/errors';
import type { CommandContext } from './commands/shared.js';
import type { HeldHangUps } from './reload/hang-ups.js';
import type { StdioPrestarts } from '@toolplane/toolkit/spawn';
import type { CliConfig } from './config.js';
import { exitCode, Output, type OutputStream } from './output.js';
import { VERSION } from './version.js';

type Register = (command: Command, context: CommandContext) => void;

/**
 * Every command, in the order `--help` lists them. Only the module of the command a user runs is
 * imported (with the toolkit, the gateway, the stores and OAuth behind it): `--version`, `--help`
 * and a mistyped command start in a blink.
 */
const COMMANDS: Readonly<Record<string, { description: string; load: () => Promise<Register> }>> = {
  serve: {
    description: 'start the gateway (stdio by default; --http for Streamable HTTP)',
    load: async () => (await import('./commands/serve.js')).registerServe,
  },
  tools: {
    description: 'list, search, describe and call tools',
    load: async () => (await import('./commands/tools.js')).registerTools,
  },
  prompts: {
    description: 'list, render, add and remove prompts',
    load: async () => (await import('./commands/prompts.js')).registerPrompts,
  },
  resources: {
    description: 'list, read, add and remove resources, and list resource templates',
    load: async () => (await import('./commands/resources.js')).registerResources,
  },
  chain: {
    description: 'run tools one after another',
    load: async () => (await import('./commands/chain.js')).registerChain,
  },
  'run-code': {
    description:
      'run a JavaScript program (the body of an async function) in a QuickJS sandbox where each tool is `await tools.<namespace>.<tool>(args)`',
    load: async () => (await import('./commands/run-code.js')).registerRunCode,
  },
  search: {
    description: 'what tool search learned from use: forget it',
    load: async () => (await import('./commands/search.js')).registerSearch,
  },
  connectors: {
    description: 'the upstream MCP servers',
    load: async () => (await import('./commands/connectors.js')).registerConnectors,
  },
  auth: {
    description:
      "OAuth: the gateway's logins to protected upstream servers (per-server auth), and test tokens for the gateway itself (top-level auth)",
    load: async () => (await import('./commands/auth.js')).registerAuth,
  },
  audit: {
    description:
      'the audit log: approvals asked, granted and refused; tools pinned, changed and accepted',
    load: async () => (await import('./commands/pins.js')).registerAudit,
  },
};

/** Where {@link runCli} reads and writes; the process's own streams by default. */
export interface RunCliOptions {
  readonly stdout?: OutputStream;
  readonly stderr?: OutputStream;
  /** Where `key=@-` arguments are read from; the process's standard input by default. */
  readonly stdin?: AsyncIterable<string | Uint8Array>;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** Aborting it stops the command (as Ctrl-C does): servers are closed, children ended. */
  readonly signal?: AbortSignal;
  /** How to start this CLI again, for the `mcpServers` snippet `serve` prints. */
  readonly self?: readonly string[];
  /**
   * Told how long the command may take to stop cleanly once `signal` aborts (`serve --http`
   * drains calls in flight), for a host that ends the process after a deadline of its own.
   */
  readonly onStopTime?: (ms: number) => void;
  /**
   * Told once the command asked for has loaded: from then on it can act on `signal` (a host's
   * stop deadline need not count the load, seconds on a busy machine).
   */
  readonly onLoaded?: () => void;
  /**
   * The config's stdio servers, already started by the caller (the bin starts them before it
   * loads this module, so that their start overlaps the CLI's own load); `undefined` when the
   * caller looked and started none. Without this key, `runCli` starts them itself.
   */
  readonly prestarted?: StdioPrestarts | undefined;
  /**
   * SIGHUP held from the process's start (the bin's, for `serve`), so that one sent while the
   * CLI still loads neither ends it nor is lost; `serve` holds it itself without this.
   */
  readonly hangUps?: HeldHangUps | undefined;
}

interface Context {
  readonly output: Output;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal: AbortSignal;
  readonly self: readonly string[];
  /** Touched only when `@-` asks for it: opening the process's stdin has side effects. */
  readonly stdin: () => AsyncIterable<string | Uint8Array>;
  readonly stopTime: (ms: number) => void;
  readonly prestarted?: StdioPrestarts | undefined;
  readonly hangUps?: HeldHangUps | undefined;
}

interface GlobalOptions {
  config?: string;
  json?: boolean;
  strict?: boolean;
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
    stdin: () => options.stdin ?? process.stdin,
    stopTime: options.onStopTime ?? (() => undefined),
    ...(options.hangUps === undefined ? {} : { hangUps: options.hangUps }),
  };
  let code = 0;
  const word = commandWord(argv);
  // A command that connects to the config's servers starts them before it loads its modules
  // (the toolkit, the SDK, the gateway), so that their start overlaps its own.
  const prestarted =
    'prestarted' in options
      ? options.prestarted
      : word === 'serve' || word === 'tools'
        ? await (await import('./prestart.js')).prestartServers(argv, context)
        : undefined;
  try {
    const program = await buildProgram({ ...context, prestarted }, word, (c) => {
      code = c;
    });
    options.onLoaded?.();
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    // Commander has already printed its usage error (or the help, or the version); with --json a
    // usage error is also `{ error }` on stdout, as every other failure is.
    if (error instanceof Error && error.name === 'CommanderError') {
      const code = exitCode(error);
      if (code !== 0 && output.json) {
        output.data({
          error: { code: 'invalid_argument', message: error.message.replace(/^error: /, '') },
        });
      }
      return code;
    }
    return output.fail(error);
  } finally {
    // Whatever the command did not adopt (a server filtered out, a config refused) is ended.
    prestarted?.dispose();
  }
}

/**
 * The command a user asked for (`tools` in `toolplane -c x.yaml tools list`, and in `toolplane
 * help tools`), or undefined when there is none.
 */
function commandWord(argv: readonly string[]): string | undefined {
  let afterHelp = false;
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i] ?? '';
    if (word === '--') return undefined;
    // The one global option that takes a separate value.
    if (word === '-c' || word === '--config') i += 1;
    else if (word === 'help' && !afterHelp) afterHelp = true;
    else if (!word.startsWith('-')) return word;
  }
  return undefined;
}

async function buildProgram(
  base: Context,
  wanted: string | undefined,
  setCode: (code: number) => void,
): Promise<Command> {
  const { output } = base;
  const program = new Command('toolplane')
    .description(
      'An aggregating MCP gateway: builtin tools, your MCP servers, prompts and resources behind one endpoint.',
    )
    .option('-c, --config <file>', 'config file (default: toolplane.config.{yaml,yml,json} here)')
    .option('--json', 'print machine-readable JSON on stdout')
    .option(
      '--strict',
      'a tools filter entry or an approval pattern that matches no tool is an error (exit 2), not a warning',
    )
    .version(VERSION, '-V, --version', 'print the version')
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
  let stdinRead = false;
  const context: CommandContext = {
    ...base,
    config: () => loadCliConfig(base, program.opts<GlobalOptions>()),
    setCode,
    readStdin: async () => {
      if (stdinRead) {
        throw new ToolError('invalid_argument', 'standard input can be read once: use @- once');
      }
      stdinRead = true;
      const chunks: Buffer[] = [];
      for await (const chunk of base.stdin()) {
        chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
      }
      return Buffer.concat(chunks).toString('utf8');
    },
  };
  for (const [name, { description, load }] of Object.entries(COMMANDS)) {
    const command = program.command(name).description(description);
    // The others stay names and descriptions, enough for the help and "did you mean".
    if (name === wanted) (await load())(command, context);
  }
  refuseRepeats(program);
  return program;
}

/**
 * Commander lets the last of a repeated option win, so `--config a.yaml --config b.yaml` would
 * silently use b.yaml: an option that takes one value is refused when given twice.
 */
function refuseRepeats(command: Command): void {
  for (const option of command.options) {
    if (option.variadic || !(option.required || option.optional)) continue;
    let seen = 0;
    command.on(`option:${option.name()}`, () => {
      seen += 1;
      if (seen > 1) {
        command.error(`error: option '${option.flags}' given more than once; give it once`, {
          exitCode: 2,
          code: 'toolplane.repeatedOption',
        });
      }
    });
  }
  for (const sub of command.commands) refuseRepeats(sub);
}

async function loadCliConfig(context: Context, globals: GlobalOptions): Promise<CliConfig> {
  const { loadConfig } = await import('./config.js');
  // Not aborted by Ctrl-C: reading a local file takes no time worth cutting short, and a stop
  // asked for while the command loads (its servers already started) is the command's to make
  // cleanly, not a config file that "cannot be read".
  const cfg = await loadConfig({
    cwd: context.cwd,
    env: context.env,
    ...(globals.config === undefined ? {} : { file: globals.config }),
  });
  context.output.useSecrets(cfg.secrets);
  return globals.strict === true ? { ...cfg, strict: true } : cfg;
}
