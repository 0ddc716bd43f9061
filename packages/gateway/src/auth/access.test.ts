import type { AuthInfo } from '@modelcontextprotocol/server';
import { createResourceServer } from '@toolplane/oauth';
import {
  createToolkit,
  defineResourceTemplate,
  defineTool,
  textResource,
  type Toolkit,
} from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayHub } from '../hub.js';
import { accessFilter, checkAccess, targetsOf } from './access.js';
import { verifiedByInfo } from './verified.js';

// The handlers' own check (behind the gate's 403) and what the gate reads from a message, on a
// real toolkit and a real resource server's scope policy (no authorization server is asked:
// the callers are made here, as a verified token would make them).

let toolkit: Toolkit;
let hub: GatewayHub;
const auth = createResourceServer({
  issuer: 'http://127.0.0.1:1',
  scopes: {
    docs: { prompts: ['summarize'], resources: ['file:///docs/*'] },
    admin: { namespaces: ['*'] },
  },
});

/** What the SDK hands a handler of a request whose token carried `scopes`. */
function extraFor(scopes: string[]): { http: { authInfo: AuthInfo } } {
  const authInfo: AuthInfo = { token: '', clientId: 'c', scopes };
  verifiedByInfo.set(authInfo, {
    auth,
    caller: { subject: 's', clientId: 'c', scopes, issuer: auth.issuer, expiresAt: undefined },
  });
  return { http: { authInfo } };
}

beforeAll(() => {
  toolkit = createToolkit({
    tools: [
      defineTool({ name: 'wipe', description: 'Wipes.', input: z.object({}), run: () => 'ok' }),
    ],
    prompts: [
      { name: 'summarize', template: 'Summarize.' },
      { name: 'deploy', template: 'Deploy.' },
    ],
    resources: [textResource('secret', 'x', { uri: 'file:///etc/secret' })],
    resourceTemplates: [
      defineResourceTemplate({ uriTemplate: 'secret://{id}', name: 'key', read: () => 'k' }),
    ],
  });
  hub = new GatewayHub(toolkit, {});
});

afterAll(async () => {
  hub.dispose();
  await toolkit.close();
});

describe('checkAccess (the handlers’ own check)', () => {
  it('refuses with -32600 insufficient_scope naming the scopes, as a refused tool call', () => {
    let error: unknown;
    try {
      checkAccess(extraFor(['docs']), {
        kind: 'prompt',
        prompt: { namespace: 'builtin', name: 'deploy' },
      });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: -32600,
      message: 'insufficient_scope: prompt "builtin:deploy" needs scope "admin"',
      data: { error: 'insufficient_scope', scope: 'admin' },
    });
    expect(() => {
      checkAccess(extraFor(['docs']), {
        kind: 'resource',
        resource: { namespace: 'builtin', uri: 'file:///etc/secret' },
      });
    }).toThrow(expect.objectContaining({ code: -32600 }));
  });

  it('lets through what the scopes grant, and everything without OAuth', () => {
    const docs = { namespace: 'builtin', uri: 'file:///docs/a' };
    expect(() => {
      checkAccess(extraFor(['docs']), { kind: 'resource', resource: docs });
    }).not.toThrow();
    expect(() => {
      checkAccess({}, { kind: 'prompt', prompt: { namespace: 'builtin', name: 'deploy' } });
    }).not.toThrow();
    expect(accessFilter({})).toBeUndefined();
    expect(accessFilter(extraFor(['docs']))?.resource(docs)).toBe(true);
    expect(accessFilter(extraFor([]))?.resource(docs)).toBe(false);
  });
});

describe('targetsOf (what the gate judges before dispatch)', () => {
  it('resolves prompts, listed resources, template URIs and listened URIs', async () => {
    const call = (method: string, params: unknown) =>
      targetsOf({ jsonrpc: '2.0', id: 1, method, params }, hub);
    expect(await call('prompts/get', { name: 'builtin__deploy' })).toEqual([
      { kind: 'prompt', prompt: { namespace: 'builtin', name: 'deploy' } },
    ]);
    expect(await call('resources/read', { uri: 'secret://7' })).toEqual([
      { kind: 'resource', resource: { namespace: 'builtin', uri: 'secret://7' } },
    ]);
    expect(
      await call('subscriptions/listen', {
        notifications: { resourceSubscriptions: ['file:///etc/secret', 'nowhere://x', 42] },
      }),
    ).toEqual([
      { kind: 'resource', resource: { namespace: 'builtin', uri: 'file:///etc/secret' } },
    ]);
    expect(await call('tools/call', { name: 'builtin__wipe' })).toHaveLength(1);
  });

  it('finds nothing to judge in hostile or unknown messages, without throwing', async () => {
    const hostile: unknown[] = [
      null,
      'prompts/get',
      [],
      { method: 'prompts/get' },
      { method: 'prompts/get', params: null },
      { method: 'prompts/get', params: { name: { toString: 'x' } } },
      { method: 'prompts/get', params: { name: '__proto__' } },
      { method: 'resources/read', params: { uri: ['file:///etc/secret'] } },
      { method: 'completion/complete', params: { ref: '__proto__' } },
      { method: 'completion/complete', params: { ref: { type: 'ref/resource', uri: 7 } } },
      { method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: 'x' } } },
      { method: 'tools/call', params: { name: 'builtin__nothing' } },
      JSON.parse('{"method":"prompts/get","params":{"__proto__":{"name":"builtin__deploy"}}}'),
    ];
    for (const message of hostile) expect(await targetsOf(message, hub)).toEqual([]);
  });

  it('judges every URI of a huge listen', async () => {
    const uris = Array.from({ length: 20_000 }, (_, i) => `nowhere://${String(i)}`);
    uris.push('file:///etc/secret');
    const targets = await targetsOf(
      {
        method: 'subscriptions/listen',
        params: { notifications: { resourceSubscriptions: uris } },
      },
      hub,
    );
    expect(targets).toEqual([
      { kind: 'resource', resource: { namespace: 'builtin', uri: 'file:///etc/secret' } },
    ]);
  });
});
