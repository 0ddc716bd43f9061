import { ProtocolError } from '@modelcontextprotocol/client';
import { ToolError } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { MASK, Secrets } from './secrets.js';

describe('Secrets', () => {
  it('masks every known value, longest first', () => {
    const secrets = new Secrets(['sk-abc123', 'sk-abc123-long']);
    expect(secrets.redact('a sk-abc123-long and sk-abc123.')).toBe(`a ${MASK} and ${MASK}.`);
  });

  it('ignores values too short to be secrets', () => {
    const secrets = new Secrets(['abc', '']);
    expect(secrets.size).toBe(0);
    expect(secrets.redact('abc')).toBe('abc');
  });

  it('masks regular-expression characters literally', () => {
    const secrets = new Secrets(['a.b*c(d)+[e]']);
    expect(secrets.redact('x a.b*c(d)+[e] axbbc')).toBe(`x ${MASK} axbbc`);
  });

  it('masks the percent-encoded form a secret takes inside a URL', () => {
    const secrets = new Secrets(['p@ss word/1']);
    expect(secrets.redact('GET http://h/?k=p%40ss%20word%2F1 failed')).toBe(
      `GET http://h/?k=${MASK} failed`,
    );
  });

  it('masks a URL-query secret in every encoding it travels in', () => {
    const secrets = new Secrets();
    const url = new URL("http://127.0.0.1:9/mcp?key=k y^'s~1");
    secrets.addUrl(url);
    const shown = [
      url.href, // the URL serializer: `k%20y^%27s~1`
      `?key=${encodeURIComponent("k y^'s~1")}`,
      `?${new URLSearchParams({ key: "k y^'s~1" }).toString()}`,
      '?key=k%20y%5e%27s~1',
      "raw k y^'s~1",
    ];
    for (const text of shown) expect(secrets.redact(text)).not.toMatch(/k(%20|\+| )y/);
    expect(secrets.redact(url.href)).toBe(`http://127.0.0.1:9/mcp?key=${MASK}`);
  });

  it('masks URL credentials as a Basic authorization carries them, and a Basic header’s password', () => {
    const secrets = new Secrets();
    secrets.addUrl('https://alice:s3cr%20et@example.test/');
    const basic = Buffer.from('alice:s3cr et').toString('base64');
    expect(secrets.redact(`authorization: Basic ${basic}`)).toBe(`authorization: Basic ${MASK}`);
    const header = new Secrets();
    header.addSource({
      url: 'https://example.test/mcp',
      headers: { authorization: `Basic ${Buffer.from('bob:pa55-word').toString('base64')}` },
    });
    expect(header.redact('login bob with pa55-word')).toBe(`login bob with ${MASK}`);
  });

  it('keeps a JSON-RPC error a ProtocolError, its code kept and message and data masked', () => {
    const secrets = new Secrets(['sk-live-42']);
    const error = new ProtocolError(-32000, 'refused sk-live-42', { key: 'sk-live-42', n: 1 });
    const redacted = secrets.redactError(error);
    expect(ProtocolError.isInstance(redacted)).toBe(true);
    expect(redacted).toMatchObject({
      code: -32000,
      message: `refused ${MASK}`,
      data: { key: MASK, n: 1 },
    });
  });

  it('takes URL credentials: user info and credential-named query values', () => {
    const secrets = new Secrets();
    secrets.addUrl('https://user:hunter2%21@example.test/mcp?api_key=k-999&page=2&sig=zzzz');
    secrets.addUrl('https://ghp_tokenvalue0123456789@example.test/');
    secrets.addUrl('postgres://postgres@127.0.0.1/db');
    secrets.addUrl('not a url');
    const text = 'hunter2! k-999 zzzz ghp_tokenvalue0123456789 page=2 user postgres';
    expect(secrets.redact(text)).toBe(`${MASK} ${MASK} ${MASK} ${MASK} page=2 user postgres`);
  });

  it('redacts an error message keeping its code, tool and cause', () => {
    const cause = new Error('inner');
    const secrets = new Secrets(['sk-live-42']);
    const error = new ToolError('execution', 'upstream said sk-live-42', {
      cause,
      toolId: 'a__b',
    });
    const redacted = secrets.redactError(error);
    expect(ToolError.isInstance(redacted)).toBe(true);
    expect(redacted).toMatchObject({
      code: 'execution',
      message: `upstream said ${MASK}`,
      toolId: 'a__b',
    });
    expect((redacted as ToolError).cause).toBe(cause);
    const plain = new Error('nothing to hide');
    expect(secrets.redactError(plain)).toBe(plain);
  });

  it('takes the credentials of connector sources', () => {
    const secrets = new Secrets();
    secrets.addSource({
      url: 'https://example.test/mcp?token=tok-in-url',
      headers: { Authorization: 'Bearer abcdef123456' },
      token: 'token-field-value',
    });
    secrets.addSource({ command: 'node', env: { API_KEY: 'not-taken-here' } });
    expect(secrets.redact('tok-in-url abcdef123456 token-field-value not-taken-here')).toBe(
      `${MASK} ${MASK} ${MASK} not-taken-here`,
    );
  });

  it('redacts state changes and log messages of events', () => {
    const secrets = new Secrets(['sk-live-42']);
    const state = secrets.redactEvent({
      type: 'state_change',
      namespace: 'a',
      state: 'failed',
      error: new Error('stderr: sk-live-42'),
    });
    expect(state).toMatchObject({ error: { message: `stderr: ${MASK}` } });
    const log = secrets.redactEvent({
      type: 'log_message',
      namespace: 'a',
      level: 'info',
      data: { said: 'key sk-live-42' },
    });
    expect(log).toMatchObject({ data: { said: `key ${MASK}` } });
  });

  it('redacts the text of error results and leaves successful results alone', () => {
    const secrets = new Secrets(['sk-live-42']);
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
    const failed = secrets.redactErrorResult({
      isError: true,
      content: [{ type: 'text', text: 'key sk-live-42 refused' }, image],
    });
    expect(failed.content).toEqual([{ type: 'text', text: `key ${MASK} refused` }, image]);
    const ok = { content: [{ type: 'text' as const, text: 'sk-live-42' }] };
    expect(secrets.redactErrorResult(ok)).toBe(ok);
  });
});
