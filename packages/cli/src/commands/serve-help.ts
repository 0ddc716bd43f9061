import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { shellWord } from '@toolplane/toolmodel/text';
import type { CliConfig } from '../config.js';
import type { Output } from '../output.js';
import { CLIENT_SECRET_VARIABLE } from './auth-token.js';

/**
 * The Inspector release whose `--cli` mode takes `--header` (0.15.0 refuses it); its launcher is
 * the same code as `@modelcontextprotocol/inspector-cli` of that version. Every release with
 * `--header` declares Node >=22.7.5, so npm warns on Node 20 while the CLI mode runs (README).
 */
export const INSPECTOR = '@modelcontextprotocol/inspector@1.0.3';

/** The environment variable `serve` reads a token from, and the printed commands refer to. */
export const TOKEN_VARIABLE = 'TOOLPLANE_TOKEN';

// The package's committed entry (bin/toolplane.js), two folders up from both src/commands and
// dist/commands: it runs the build or, in a clone, the source with tsx resolved from the
// package itself, so it starts from any working directory.
const entry = fileURLToPath(new URL('../../bin/toolplane.js', import.meta.url));

/**
 * How an MCP client starts this CLI from any directory: Node with the absolute path of the
 * package's entry, or `fallback` (the command line this process was started with) when the
 * entry is missing.
 */
export function selfCommand(fallback: readonly string[]): readonly string[] {
  return existsSync(entry) ? [process.execPath, entry] : fallback;
}

/**
 * The variable the printed commands of a gateway in OAuth mode (top-level `auth`) take the access
 * token from: not {@link TOKEN_VARIABLE}, which `serve` reads as a static token (exclusive with
 * OAuth).
 */
export const ACCESS_TOKEN_VARIABLE = 'TOOLPLANE_ACCESS_TOKEN';

/** How clients are let in: freely, with the static bearer token, or with OAuth access tokens. */
export type HttpAccess = 'open' | 'token' | 'oauth';

/** The variable whose token the printed commands send, if any. */
function tokenVariable(access: HttpAccess): string | undefined {
  return access === 'token'
    ? TOKEN_VARIABLE
    : access === 'oauth'
      ? ACCESS_TOKEN_VARIABLE
      : undefined;
}

/** The arguments after `npx` of Inspector CLI commands that try a gateway at `url`. */
export function inspectorCommands(
  cfg: CliConfig,
  url: string,
  access: HttpAccess,
): readonly (readonly string[])[] {
  const base = [INSPECTOR, '--cli', url, '--transport', 'http'];
  const variable = tokenVariable(access);
  const header = variable === undefined ? [] : ['--header', `Authorization: Bearer $${variable}`];
  const commands = [[...base, '--method', 'tools/list', ...header]];
  if (cfg.builtins && cfg.mode === 'tools') {
    const prefix =
      cfg.naming.transparent === 'builtin' ? '' : `builtin${cfg.naming.separator ?? '__'}`;
    commands.push([
      ...base,
      '--method',
      'tools/call',
      '--tool-name',
      `${prefix}time_now`,
      '--tool-arg',
      'timeZone=Europe/Paris',
      ...header,
    ]);
  }
  return commands;
}

/** Prints the URL, Inspector commands and an `mcpServers` entry for a gateway served over HTTP. */
export function printHttpHelp(
  output: Output,
  cfg: CliConfig,
  url: string,
  access: HttpAccess,
  extra: { readonly dashboard?: string; readonly login?: boolean } = {},
) {
  const c = output.errColor;
  output.say(`${c.green('toolplane gateway')} listening on ${c.bold(url)} (Streamable HTTP)`);
  if (extra.dashboard !== undefined) {
    output.say(
      `${c.green('dashboard')} ${c.bold(extra.dashboard)}${extra.login === true ? c.dim(' (log in with the token)') : ''}`,
    );
  }
  output.say('');
  output.say('Try it with the MCP Inspector:');
  if (access === 'token') output.say(c.dim(`  (with the token in ${TOKEN_VARIABLE})`));
  if (access === 'oauth') {
    // Without a token the Inspector's CLI gets 401: say how to get one first.
    const config = cfg.file === undefined ? '' : ` --config ${shellQuote(cfg.file)}`;
    output.say(
      c.dim(
        `  (with an access token in ${ACCESS_TOKEN_VARIABLE}; for a client allowed the client credentials grant:`,
      ),
    );
    output.say(
      c.dim(
        `   export ${ACCESS_TOKEN_VARIABLE}=$(${CLIENT_SECRET_VARIABLE}=… toolplane${config} auth token --client-id <id> --resource ${url}))`,
      ),
    );
  }
  for (const args of inspectorCommands(cfg, url, access)) {
    output.say(`  npx ${args.map(shellQuote).join(' ')}`);
  }
  output.say('');
  output.say(
    access === 'oauth'
      ? 'Add it to Claude Desktop, Cursor or any MCP client (mcpServers; clients that speak MCP authorization log in themselves):'
      : 'Add it to Claude Desktop, Cursor or any MCP client (mcpServers):',
  );
  const entry =
    access === 'token'
      ? { url, headers: { Authorization: `Bearer \${${TOKEN_VARIABLE}}` } }
      : { url };
  output.say(indent(JSON.stringify({ mcpServers: { toolplane: entry } }, null, 2)));
  output.say('');
  output.say(c.dim('Ctrl-C stops the gateway and every server it started.'));
}

/** The `mcpServers` entry that starts this gateway over stdio from any directory. */
export function stdioEntry(
  cfg: CliConfig,
  fallback: readonly string[],
): { command: string; args: string[] } {
  const [command = process.execPath, ...args] = selfCommand(fallback);
  return {
    command,
    args: [...args, 'serve', '--stdio', ...(cfg.file === undefined ? [] : ['--config', cfg.file])],
  };
}

/** Prints how to add the gateway served over stdio to an MCP client. */
export function printStdioHelp(output: Output, cfg: CliConfig, fallback: readonly string[]) {
  output.say(`${output.errColor.green('toolplane gateway')} serving MCP on stdio`);
  output.say('Add it to Claude Desktop, Cursor or any MCP client (mcpServers):');
  output.say(
    indent(JSON.stringify({ mcpServers: { toolplane: stdioEntry(cfg, fallback) } }, null, 2)),
  );
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

// Double quotes, so that the shell expands `$TOOLPLANE_TOKEN` in a header; single quotes else.
function shellQuote(arg: string): string {
  const word = shellWord(arg);
  return word !== arg && arg.includes('$') ? `"${arg.replace(/(["\\`])/g, '\\$1')}"` : word;
}
