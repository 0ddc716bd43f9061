// A minimal MCP server over stdio as `node -e` source, for tests whose upstream must say exactly
// what they need (plain JSON-RPC, no SDK, so it runs from any directory).

/** What {@link stdioServerScript} builds. */
export interface StdioServerScript {
  /** The server's name in its `initialize` answer. */
  readonly name: string;
  /** The names of the tools it lists (each takes any object). */
  readonly tools: readonly string[];
  /**
   * JavaScript statements answering a `tools/call`, with `params` (the request's) and
   * `reply(body)` (sends `{ jsonrpc, id, ...body }`) in scope.
   */
  readonly onCall: string;
  /** JavaScript statements run once at start-up, before any message. */
  readonly prelude?: string;
}

/**
 * The source of a server that answers `initialize`, `tools/list`, `ping` and `tools/call` (as
 * `onCall` says), and -32601 to anything else.
 */
export function stdioServerScript(options: StdioServerScript): string {
  const tools = options.tools.map((name) => ({ name, inputSchema: { type: 'object' } }));
  return `
${options.prelude ?? ''}
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) >= 0) {
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + 1);
    if (line.trim() === '') continue;
    const message = JSON.parse(line);
    if (message.id === undefined) continue;
    const reply = (body) =>
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...body }) + '\\n');
    const params = message.params ?? {};
    if (message.method === 'initialize') {
      reply({ result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} },
        serverInfo: { name: ${JSON.stringify(options.name)}, version: '1.0.0' } } });
    } else if (message.method === 'tools/list') {
      reply({ result: { tools: ${JSON.stringify(tools)} } });
    } else if (message.method === 'tools/call') {
      ${options.onCall}
    } else if (message.method === 'ping') {
      reply({ result: {} });
    } else {
      reply({ error: { code: -32601, message: 'no ' + message.method } });
    }
  }
});
`;
}
