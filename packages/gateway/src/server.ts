import {
  ProtocolError,
  ProtocolErrorCode,
  type Prompt as McpPrompt,
  type Resource as McpResource,
} from '@modelcontextprotocol/server';
import {
  BUILTIN_NAMESPACE,
  USER_NAMESPACE,
  toMcpResource,
  toResourceContents,
  type Toolkit,
  type CompletionTarget,
} from '@toolplane/toolkit';
import { DEFAULT_SEPARATOR, UriTable } from './names.js';
import type { GatewayOptions } from './options.js';
import type { McpServerInstance } from './sdk/gateway-server.js';
import { envelopeLogLevel, legacyOnlyRefusal, type Era } from './eras.js';
import { callsTools, callToolRefusal, searchTools } from './search-mode.js';
import type { RunCall } from './session/round-calls.js';
import { shareKey } from './session/state.js';
import { newGatewayServer } from './sdk/new-server.js';
import { GatewayHub } from './hub.js';
import { checkGatewayOptions, GATEWAY_OPTION_KEYS } from './option-checks.js';
import { toolCaller } from './tool-call.js';
import { observeUnknown } from './observe/observer.js';
import { callLane } from './call-lane.js';
import { accessFilter, checkAccess, resourceOf, visibleTools } from './auth/access.js'; // OAuth (auth/)
import { callerKey } from './auth/verified.js'; // OAuth (auth/)
import { codeModeToolList, runCodeModeTool } from './code-mode.js';
import { toolPage } from './listing/pages.js';
import {
  compare,
  matches,
  page,
  protocolError,
  unknownTool,
  pinnedToolResult,
  unlistedStoreError,
  unlistedToolResult,
} from './call-results.js';

export { ERROR_META_KEY } from './call-results.js';

// As many as the upstream servers we measured send a page (a full listing of 100k tools is 100
// round trips, not 200), and a page still about a megabyte for tools of a kilobyte each.
const DEFAULT_PAGE_SIZE = 1_000;

/**
 * Creates an MCP server (the SDK's low-level `Server`) that serves `toolkit`: its tools, prompts
 * and resources under exposed names (see `NameTable` in @toolplane/toolmodel), calls with progress and
 * cancellation passed through, upstream log messages and list changes relayed, and an upstream's
 * sampling and elicitation requests during a call forwarded to the session that made it. Connect
 * it to any transport; {@link serveStdio} and {@link serveHttp} do that for you (and wait for
 * connected upstreams to reconnect advertising sampling and elicitation, which this does in the
 * background).
 *
 * The toolkit stays the caller's: closing the server never closes it.
 */
export function createMcpServer(toolkit: Toolkit, options: GatewayOptions = {}): McpServerInstance {
  checkGatewayOptions(options, 'createMcpServer', GATEWAY_OPTION_KEYS);
  return createSingleSession(toolkit, options).server;
}

/**
 * {@link createMcpServer} with its hub, so a caller can wait for `hub.negotiated`.
 *
 * @internal
 */
export function createSingleSession(
  toolkit: Toolkit,
  options: GatewayOptions,
): { server: McpServerInstance; hub: GatewayHub } {
  const hub = new GatewayHub(toolkit, options);
  const server = createSessionServer(hub);
  const previous = server.onclose;
  server.onclose = () => {
    previous?.();
    hub.dispose();
  };
  return { server, hub };
}

/**
 * One session's server on a shared hub: a 2025 session, or one 2026-07-28 request (or stdio
 * connection) when `era` is `modern`; `source` is the HTTP request's (absent on stdio).
 *
 * @internal
 */
export function createSessionServer(
  hub: GatewayHub,
  era: Era = 'legacy',
  source?: string,
): McpServerInstance {
  const { toolkit, options } = hub;
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const server = newGatewayServer(options);
  const session = hub.attach(server, era, source);
  if (era === 'modern') server.refuseMethods(legacyOnlyRefusal);
  // Every handler below first waits for upstreams to have reconnected advertising sampling and
  // elicitation (at once after the first time), so none sees them half-way.
  server.oninitialized = () => {
    session.initialized = true;
    // A client with roots is, to the upstreams, the gateway's roots changing: they ask again, and
    // roots/list outside a call is answered with the roots of the session that came last.
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025 session's capabilities
    if (server.getClientCapabilities()?.roots !== undefined) hub.host.rootsChanged(session.token);
  };
  const previousClose = server.onclose;
  server.onclose = () => {
    previousClose?.();
    hub.detach(session);
  };
  // Upstreams that asked for the client's roots hear that they changed, and ask again.
  server.setNotificationHandler('notifications/roots/list_changed', () => {
    hub.host.rootsChanged(session.token);
  });
  // Kept per session here rather than by the SDK, so builtins' log messages honour it too.
  server.setRequestHandler('logging/setLevel', (request) => {
    session.logLevel = request.params.level;
    return {};
  });

  // -- tools -------------------------------------------------------------------------------

  server.setRequestHandler('tools/list', async (request, extra) => {
    await hub.negotiated;
    const { mode } = hub.options;
    if (mode === 'search') return { tools: searchTools.map((t) => t.tool) };
    if (mode === 'code') return { tools: codeModeToolList(hub) };
    const listed = await hub.listedTools();
    const visible = await visibleTools(extra, hub); // OAuth (auth/): the caller's scopes
    // Everyone's listing is the same: its pages are made (and serialised) once.
    if (visible === undefined) return toolPage(listed, request.params?.cursor, pageSize);
    const tools = listed.filter((t) => visible.has(t.name));
    const { items, nextCursor } = page(
      'tools/list',
      tools,
      (t) => t.name,
      request.params?.cursor,
      pageSize,
    );
    return nextCursor === undefined ? { tools: items } : { tools: items, nextCursor };
  });

  const callTool = toolCaller(hub, session, server, era);
  server.setToolCallHandler(async (request, extra) => {
    if (!hub.isNegotiated) await hub.negotiated;
    if (era === 'modern') session.logLevel = envelopeLogLevel(extra.mcpReq.envelope);
    const { name, arguments: args = {} } = request.params;
    const { progressToken, ...meta } = request.params._meta ?? {};
    const call = callTool(extra, meta, progressToken);
    /** Search mode's `tool` (one that calls tools) as a call with input rounds. */
    const searchCall = (tool: string, input: Record<string, unknown>): RunCall | undefined => {
      const found = callsTools(tool) ? searchTools.find((t) => t.tool.name === tool) : undefined;
      if (found === undefined) return undefined;
      return async (signal, requestInput) =>
        found.run(hub, input, {
          call: (item, input) => call(item, input, { signal, requestInput }),
          signal,
          visible: await visibleTools(extra, hub), // OAuth (auth/): what search results show
          sessionKey: hub.learningKey(session, extra),
        });
    };
    // A 2026 client's retry of a call that asked for input: its answer goes upstream.
    const state = era === 'modern' ? extra.mcpReq.requestState() : undefined;
    if (typeof state === 'string') {
      return hub.rounds.resume(state, {
        method: 'tools/call',
        responses: extra.mcpReq.inputResponses,
        ctx: extra,
        // The call is held by another instance (or has ended here): run again here, if it may.
        replay: async (tool, replayArgs) => {
          if (hub.options.mode === 'search') {
            const run = searchCall(tool, { ...replayArgs });
            if (run === undefined) return `no tool "${tool}" here`;
            return { run, refusal: await callToolRefusal(hub, replayArgs) };
          }
          const found = (hub.toolsNow() ?? (await hub.tools())).resolve(tool);
          if (found === undefined) return `no tool "${tool}" here`;
          return {
            run: (signal, requestInput) => call(found, { ...replayArgs }, { signal, requestInput }),
            refusal: hub.replayRefusal(found, tool),
          };
        },
      });
    }
    const { mode, separator } = hub.options;
    if (mode === 'search') {
      // A 2026 client's call_tool asks it (the gateway's approval, an upstream) in input rounds.
      const run = era === 'modern' && callsTools(name) ? searchCall(name, args) : undefined;
      if (run !== undefined) {
        const refusal = await callToolRefusal(hub, args);
        return hub.rounds.start(run, { tool: name, arguments: args, refusal }, extra);
      }
      const tool = searchTools.find((t) => t.tool.name === name);
      if (tool === undefined) throw unknownTool(name);
      return tool.run(hub, args, {
        call,
        signal: extra.mcpReq.signal,
        visible: await visibleTools(extra, hub), // OAuth (auth/): what search results show
        sessionKey: hub.learningKey(session, extra),
      });
    }
    if (mode === 'code') {
      const visible = await visibleTools(extra, hub); // OAuth (auth/): what the program sees
      const sessionKey = hub.learningKey(session, extra);
      const runner = shareKey(session, callerKey(extra)); // whose share of the sandboxes
      const rounds = era === 'modern' ? extra : undefined; // a 2026 run asks in input rounds
      const context = { call, signal: extra.mcpReq.signal, visible, sessionKey, runner, rounds };
      const result = await runCodeModeTool(hub, name, args, context);
      if (result === undefined) throw unknownTool(name);
      return result;
    }
    const table = hub.toolsNow() ?? (await hub.tools());
    const item = table.resolve(name) ?? (await hub.tools(true)).resolve(name);
    if (item === undefined) {
      const sep = separator ?? DEFAULT_SEPARATOR;
      // A tool withheld by pinning answers with why, and how to accept it.
      const pinned = await pinnedToolResult(hub.host, name, sep);
      if (pinned !== undefined) return pinned;
      // Told to metrics as `unknown`: a caller's made-up names never become label values.
      return observeUnknown(options.observe, { extra, args }, () =>
        unlistedToolResult(toolkit, name, sep),
      );
    }
    if (era === 'modern') {
      return hub.rounds.start(
        (signal, requestInput) => call(item, args, { signal, requestInput }),
        { tool: name, arguments: args, refusal: hub.replayRefusal(item, name) },
        extra,
      );
    }
    return call(item, args);
  });
  if (options.callLane !== false) server.callLane = callLane(server, hub, session, callTool);

  // -- prompts -----------------------------------------------------------------------------

  server.setRequestHandler('prompts/list', async (request, extra) => {
    await hub.negotiated;
    const table = await hub.prompts(extra.mcpReq.signal);
    const sees = accessFilter(extra); // OAuth (auth/): the caller's scopes
    const prompts: McpPrompt[] = table
      .entries()
      .filter(([, item]) => sees?.prompt(item) ?? true)
      .map(([name, item]) => ({ ...item.prompt.mcp, name }));
    const { items, nextCursor } = page(
      'prompts/list',
      prompts,
      (p) => p.name,
      request.params?.cursor,
      pageSize,
    );
    return nextCursor === undefined ? { prompts: items } : { prompts: items, nextCursor };
  });

  server.setRequestHandler('prompts/get', async (request, extra) => {
    await hub.negotiated;
    const { name, arguments: args = {} } = request.params;
    const table = await hub.prompts(extra.mcpReq.signal);
    const item = table.resolve(name);
    if (item === undefined) {
      throw (
        unlistedStoreError(table.unlisted, `prompt "${name}"`, hub.mayBeOf(name, USER_NAMESPACE)) ??
        new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `no prompt "${name}"; prompts/list names them`,
        )
      );
    }
    checkAccess(extra, { kind: 'prompt', prompt: item }); // OAuth (auth/)
    try {
      const rendered = await item.prompt.render(args, {
        signal: extra.mcpReq.signal,
        sessionKey: session.token,
      });
      const description = item.prompt.mcp.description;
      return {
        ...(description === undefined ? {} : { description }),
        messages:
          rendered.messages.length > 0
            ? rendered.messages
            : [{ role: 'user' as const, content: { type: 'text' as const, text: rendered.text } }],
      };
    } catch (error) {
      throw protocolError(error);
    }
  });

  // -- resources ---------------------------------------------------------------------------

  server.setRequestHandler('resources/list', async (request, extra) => {
    await hub.negotiated;
    const { resources } = await toolkit.list({ type: 'resource', signal: extra.mcpReq.signal });
    const table = new UriTable(resources);
    const sees = accessFilter(extra); // OAuth (auth/): the caller's scopes
    const listed: McpResource[] = resources.flatMap((item) => {
      const uri = table.uriOf(item);
      if (sees?.resource(item) === false) return [];
      return uri === undefined ? [] : [{ ...toMcpResource(item.resource), uri }];
    });
    listed.sort((a, b) => compare(a.uri, b.uri));
    const { items, nextCursor } = page(
      'resources/list',
      listed,
      (r) => r.uri,
      request.params?.cursor,
      pageSize,
    );
    return nextCursor === undefined ? { resources: items } : { resources: items, nextCursor };
  });

  server.setRequestHandler('resources/templates/list', async (request, extra) => {
    await hub.negotiated;
    const sees = accessFilter(extra); // OAuth (auth/): the caller's scopes
    // A template keeps its server's name, as a static resource does: a name is a label here,
    // never looked up (reads go by URI, completions by URI template), so it is not namespaced.
    const templates = hub
      .templates()
      .filter(
        (t) => sees?.resource({ namespace: t.namespace, uri: t.template.uriTemplate }) ?? true,
      )
      .map((t) => ({ key: `${t.template.uriTemplate}\u0000${t.namespace}`, template: t.template }))
      .sort((a, b) => compare(a.key, b.key));
    const { items, nextCursor } = page(
      'resources/templates/list',
      templates,
      (t) => t.key,
      request.params?.cursor,
      pageSize,
    );
    const resourceTemplates = items.map((t) => ({ ...t.template }));
    return nextCursor === undefined ? { resourceTemplates } : { resourceTemplates, nextCursor };
  });

  server.setRequestHandler('resources/read', async (request, extra) => {
    await hub.negotiated;
    const { uri } = request.params;
    const resources = await hub.resources(extra.mcpReq.signal);
    const item = resources.resolve(uri);
    const target = resourceOf(item, hub.templates(), uri); // OAuth (auth/)
    if (target !== undefined) checkAccess(extra, { kind: 'resource', resource: target });
    if (item !== undefined) {
      try {
        const resource = await toolkit.readResource(`${item.uri}#${item.namespace}`, {
          signal: extra.mcpReq.signal,
          sessionKey: session.token,
        });
        return { contents: [{ ...toResourceContents(resource), uri }] };
      } catch (error) {
        throw protocolError(error);
      }
    }
    // A URI no list names may still be one of the templates'.
    const match = hub.templates().find(({ template }) => matches(template.uriTemplate, uri));
    const client = match === undefined ? undefined : toolkit.connector(match.namespace)?.client;
    try {
      if (match?.namespace === BUILTIN_NAMESPACE) {
        const resource = await toolkit.readResource(`${uri}#${BUILTIN_NAMESPACE}`, {
          signal: extra.mcpReq.signal,
        });
        return { contents: [toResourceContents(resource)] };
      }
      if (client !== undefined)
        return await client.readResource({ uri }, { signal: extra.mcpReq.signal });
    } catch (error) {
      throw protocolError(error);
    }
    throw (
      unlistedStoreError(resources.unlisted, `resource "${uri}"`, true) ??
      new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `no resource "${uri}"; resources/list and resources/templates/list name them`,
      )
    );
  });

  server.setRequestHandler('resources/subscribe', async (request, extra) => {
    await hub.negotiated;
    const { uri } = request.params;
    const target = await hub.resolveResource(uri, extra.mcpReq.signal);
    if (target === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `no resource "${uri}" to subscribe to; resources/list and resources/templates/list name them`,
      );
    }
    checkAccess(extra, { kind: 'resource', resource: target }); // OAuth (auth/)
    await hub.subscribe(session, uri, target).catch((error: unknown) => {
      throw protocolError(error);
    });
    return {};
  });

  server.setRequestHandler('resources/unsubscribe', async (request) => {
    await hub.unsubscribe(session, request.params.uri);
    return {};
  });

  // -- completions -------------------------------------------------------------------------

  server.setRequestHandler('completion/complete', async (request, extra) => {
    await hub.negotiated;
    const { ref, argument, context } = request.params;
    let target: CompletionTarget;
    if (ref.type === 'ref/prompt') {
      const item = (await hub.prompts(extra.mcpReq.signal)).resolve(ref.name);
      if (item === undefined) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `no prompt "${ref.name}" to complete`,
        );
      }
      checkAccess(extra, { kind: 'prompt', prompt: item }); // OAuth (auth/)
      target = { type: 'prompt', namespace: item.namespace, name: item.name };
    } else {
      const found = hub.templates().find(({ template }) => template.uriTemplate === ref.uri);
      if (found === undefined) return { completion: { values: [] } };
      const resource = { namespace: found.namespace, uri: ref.uri }; // OAuth (auth/)
      checkAccess(extra, { kind: 'resource', resource });
      target = { type: 'resource_template', namespace: found.namespace, uriTemplate: ref.uri };
    }
    try {
      const completion = await toolkit.complete(target, argument, {
        signal: extra.mcpReq.signal,
        ...(context?.arguments === undefined ? {} : { arguments: context.arguments }),
      });
      return { completion };
    } catch (error) {
      throw protocolError(error);
    }
  });

  return server;
}
