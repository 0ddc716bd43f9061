// The dashboard's JSON API: what the web app reads and does, for a logged-in operator.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Toolkit } from '@toolplane/toolkit';
import type { CallFeed } from './call-feed.js';
import { readJsonObject, sendJson, UiError } from './http.js';

/** Which tools the dashboard shows and calls: the gateway's own filter. */
export type ToolVisibility = (tool: {
  readonly namespace?: string | undefined;
  readonly name: string;
  readonly tags?: readonly string[] | undefined;
}) => boolean;

/** What the API handlers share. */
export interface ApiContext {
  readonly toolkit: Toolkit;
  readonly feed: CallFeed;
  readonly visible: ToolVisibility;
  readonly maxBody: number;
  readonly onCall?: (call: DashboardCall) => void;
}

/** A call made from the dashboard's try-it form, as `onCall` hears of it. */
export interface DashboardCall {
  /** The tool's canonical ID (`namespace:name`). */
  readonly tool: string;
  /** Its namespace (empty for a tool without one). */
  readonly namespace: string;
  /** `ok`, `isError` (the tool said it failed) or the `ToolError` code it failed with. */
  readonly outcome: string;
  readonly durationMs: number;
  readonly args: Record<string, unknown>;
}

// The catalogue shown at most: a page the browser can render at once.
const MAX_TOOLS = 2_000;
const MAX_QUERY = 500;
const MAX_ID = 300;

/** `GET api/connectors`: each connector's state and last error. */
export function connectors(ctx: ApiContext, res: ServerResponse): void {
  sendJson(res, 200, {
    connectors: ctx.toolkit.connectors().map((c) => ({
      namespace: c.namespace,
      state: c.state,
      ...(c.error === undefined ? {} : { error: c.error }),
      ...(c.pid === undefined ? {} : { pid: c.pid }),
      ...(c.era === undefined ? {} : { era: c.era }),
    })),
  });
}

/**
 * `POST api/reconnect` `{ namespace }`: drops the connector's connection and connects again.
 *
 * @throws {UiError} 404 `not_found` for an unknown namespace; 400 `invalid_argument` for a
 * connector that cannot reconnect on demand.
 */
export async function reconnect(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJsonObject(req, ctx.maxBody);
  const namespace = stringField(body, 'namespace', MAX_ID);
  const connector = ctx.toolkit.connector(namespace);
  if (connector === undefined) {
    throw new UiError(404, 'not_found', `no connector "${namespace}"; see the Connectors page`);
  }
  if (connector.reconnect === undefined) {
    throw new UiError(
      400,
      'invalid_argument',
      `connector "${namespace}" cannot reconnect on demand`,
    );
  }
  connector.reconnect();
  sendJson(res, 202, { namespace, state: connector.state });
}

/**
 * `GET api/tools?q=`: the gateway's own search when `q` is given (its best 100; `more` when it
 * found others), else every tool, the first 2,000 of `total` (the page the browser renders).
 */
export async function tools(ctx: ApiContext, url: URL, res: ServerResponse): Promise<void> {
  const q = (url.searchParams.get('q') ?? '').trim();
  if (q.length > MAX_QUERY) {
    throw new UiError(400, 'invalid_argument', `the query is over ${String(MAX_QUERY)} characters`);
  }
  const { index } = ctx.toolkit;
  const found: { id: string; namespace?: string; name: string; description: string }[] = [];
  if (q !== '') {
    const page = await index.search(q, { limit: 100 });
    for (const hit of page.results) {
      const entry = index.getTool(hit.id);
      if (ctx.visible(entry.tool)) found.push(summary(hit.id, entry.tool));
    }
    const more = page.nextCursor !== undefined;
    sendJson(res, 200, { query: q, version: index.version, tools: found, more });
    return;
  }
  // Every visible tool is counted, so the page can say how many it does not show.
  let total = 0;
  let cursor: string | undefined;
  do {
    const page = index.listTools({ limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    for (const entry of page.entries) {
      if (!ctx.visible(entry.tool)) continue;
      total += 1;
      if (found.length < MAX_TOOLS) found.push(summary(entry.id, entry.tool));
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  sendJson(res, 200, { query: q, version: index.version, tools: found, total });
}

/**
 * `GET api/tool?id=`: one tool with its input schema, for the try-it form.
 *
 * @throws {UiError} 404 `tool_not_found`.
 */
export function tool(ctx: ApiContext, url: URL, res: ServerResponse): void {
  const id = url.searchParams.get('id') ?? '';
  const entry = id.length <= MAX_ID ? ctx.toolkit.index.getTool(id) : undefined;
  if (entry === undefined || !ctx.visible(entry.tool)) {
    throw new UiError(
      404,
      'tool_not_found',
      `no tool "${id.slice(0, MAX_ID)}"; search the catalogue`,
    );
  }
  const t = entry.tool;
  sendJson(res, 200, {
    ...summary(entry.id, t),
    ...(t.title === undefined ? {} : { title: t.title }),
    inputSchema: t.inputSchema,
    ...(t.annotations === undefined ? {} : { annotations: t.annotations }),
  });
}

/**
 * The dashboard's calls, as the audit log and the metrics name them; each login's try-it calls
 * run in a session of its own, `dashboard:` and a digest of the login.
 */
export const DASHBOARD_SESSION = 'dashboard';

/** `GET api/prompts`. */
export async function prompts(ctx: ApiContext, res: ServerResponse): Promise<void> {
  const listed = await ctx.toolkit.list({ type: 'prompt' });
  sendJson(res, 200, {
    prompts: listed.prompts.map((p) => ({
      namespace: p.namespace,
      name: p.name,
      ...(p.prompt.mcp.description === undefined ? {} : { description: p.prompt.mcp.description }),
      arguments: (p.prompt.mcp.arguments ?? []).map((a) => ({
        name: a.name,
        required: a.required === true,
        ...(a.description === undefined ? {} : { description: a.description }),
      })),
    })),
    errors: listed.errors,
  });
}

/** `GET api/resources`. */
export async function resources(ctx: ApiContext, res: ServerResponse): Promise<void> {
  const listed = await ctx.toolkit.list({ type: 'resource' });
  sendJson(res, 200, {
    resources: listed.resources.map((r) => ({
      namespace: r.namespace,
      name: r.name,
      uri: r.uri,
      ...(r.resource.description === undefined ? {} : { description: r.resource.description }),
      ...(r.resource.mimeType === undefined ? {} : { mimeType: r.resource.mimeType }),
    })),
    errors: listed.errors,
  });
}

function summary(
  id: string,
  t: {
    readonly namespace?: string | undefined;
    readonly name: string;
    readonly description?: string | undefined;
  },
): { id: string; namespace?: string; name: string; description: string } {
  return {
    id,
    ...(t.namespace === undefined ? {} : { namespace: t.namespace }),
    name: t.name,
    description: t.description ?? '',
  };
}

/** @throws {UiError} 400 `invalid_argument` unless `body[name]` is a non-empty short string. */
export function stringField(body: Record<string, unknown>, name: string, max: number): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '' || value.length > max) {
    throw new UiError(
      400,
      'invalid_argument',
      `"${name}" must be a string of 1 to ${String(max)} characters`,
    );
  }
  return value;
}
