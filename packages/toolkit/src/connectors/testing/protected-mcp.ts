// Test helper: an MCP server over Streamable HTTP on 127.0.0.1 protected by the SDK's bearer-auth
// check (`verifyBearerToken`), its tokens verified as JWTs against an authorization server's
// JWKS (`jose`), with RFC 9728 protected resource metadata, and a `write` tool that needs the
// `tools:write` scope (403 `insufficient_scope` over HTTP, for step-up).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
} from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { listenMcp } from './serve-mcp-http.js';

/** A running {@link serveProtectedMcp}. */
export interface ProtectedMcp {
  readonly url: URL;
  /** Every `Authorization` header value that reached it. */
  readonly authorizations: readonly (string | undefined)[];
  /** From now on, tokens issued before this moment are refused with 401 (as if revoked). */
  refuseOlderTokens(): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

async function send(res: ServerResponse, answer: Response): Promise<void> {
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  res.end(Buffer.from(await answer.arrayBuffer()));
}

function tools(auth: () => AuthInfo | undefined): McpServer {
  const server = new McpServer({ name: 'protected', version: '1.0.0' });
  server.registerTool('whoami', { description: 'The caller, as the token says.' }, () => ({
    content: [{ type: 'text', text: JSON.stringify({ scopes: auth()?.scopes ?? [] }) }],
  }));
  server.registerTool('write', { description: 'Needs tools:write.' }, () => ({
    content: [{ type: 'text', text: 'written' }],
  }));
  return server;
}

/** Serves the protected MCP server, trusting tokens `issuer` minted for its URL. */
export async function serveProtectedMcp(options: { issuer: string }): Promise<ProtectedMcp> {
  const jwks = createRemoteJWKSet(new URL(`${options.issuer}/jwks`));
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const authorizations: (string | undefined)[] = [];
  let refuseBefore = 0;
  const at: { url?: URL } = {};
  let current: AuthInfo | undefined;
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: options.issuer,
          audience: at.url?.href ?? '',
        });
        if ((payload.iat ?? 0) * 1000 < refuseBefore) throw new Error('revoked');
        return {
          token,
          clientId: String(payload.client_id),
          scopes: typeof payload.scope === 'string' ? payload.scope.split(' ') : [],
          ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }),
          ...(at.url === undefined ? {} : { resource: at.url }),
        };
      } catch (error) {
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          error instanceof Error ? error.message : 'invalid token',
        );
      }
    },
  };
  const served = await listenMcp(async (req, res) => {
    const url = at.url;
    if (url === undefined) throw new Error('not listening yet');
    const metadataUrl = getOAuthProtectedResourceMetadataUrl(url);
    if (req.method === 'GET' && new URL(metadataUrl).pathname === req.url) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          resource: url.href,
          authorization_servers: [options.issuer],
          scopes_supported: ['tools:read', 'tools:write'],
          bearer_methods_supported: ['header'],
        }),
      );
      return;
    }
    authorizations.push(req.headers.authorization);
    const gate = { requiredScopes: ['tools:read'], resourceMetadataUrl: metadataUrl };
    let auth: AuthInfo;
    try {
      auth = await verifyBearerToken(req.headers.authorization, {
        verifier,
        ...gate,
        expectedResource: url,
      });
    } catch (error) {
      await send(res, bearerAuthChallengeResponse(error, gate));
      return;
    }
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const call = body as { method?: string; params?: { name?: string } } | undefined;
    if (
      call?.method === 'tools/call' &&
      call.params?.name === 'write' &&
      !auth.scopes.includes('tools:write')
    ) {
      res.writeHead(403, {
        'www-authenticate': `Bearer error="insufficient_scope", scope="tools:read tools:write", resource_metadata="${metadataUrl}"`,
      });
      res.end();
      return;
    }
    current = auth;
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (transport === undefined) {
      const fresh: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, fresh);
        },
      });
      await tools(() => current).connect(fresh);
      transport = fresh;
    }
    await transport.handleRequest(req, res, body);
  });
  at.url = served.url;
  return {
    url: served.url,
    authorizations,
    refuseOlderTokens() {
      refuseBefore = Date.now() + 1_000;
    },
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      await served.close();
    },
  };
}
