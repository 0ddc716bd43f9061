import type { Command } from 'commander';
import { serveHttp, serveStdio, type GatewayOptions, type ServedGateway } from '@toolplane/gateway';
import { ToolError, type ToolkitEvent } from '@toolplane/toolkit';
import { Option } from 'commander';
import type { CliConfig } from '../config.js';
import { openToolkit, type OpenToolkit } from '../open.js';
import type { Output } from '../output.js';
import type { CommandContext } from './shared.js';

/** `toolplane serve [--stdio | --http …]`: the gateway. */
export function registerServe(program: Command, context: CommandContext): void {
  const { config, setCode } = context;
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
}

interface ServeOptions {
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: number;
  token?: string;
}

async function serve(
  context: CommandContext,
  cfg: CliConfig,
  options: ServeOptions,
): Promise<number> {
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
        maxSessions: cfg.http.maxSessions,
        sessionIdleMs: cfg.http.sessionIdleMs,
        maxConnections: cfg.http.maxConnections,
        headersTimeoutMs: cfg.http.headersTimeoutMs,
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

function printStdioHelp(output: Output, context: CommandContext, cfg: CliConfig): void {
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

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ToolError('invalid_argument', `--port ${value}: must be an integer from 0 to 65535`);
  }
  return port;
}
