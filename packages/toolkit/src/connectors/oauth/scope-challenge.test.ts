import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolError } from '@toolplane/toolmodel';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectorOAuth } from './connector-oauth.js';
import { MemoryCredentialStore } from './credential-store.js';

// The scopes of a 403 insufficient_scope challenge come from the protected server, which may be
// hostile: they end up in a command the user is told to run, and in the next token request.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function connectorOAuth() {
  return createConnectorOAuth({
    server: 'prot',
    url: 'http://127.0.0.1:9/mcp',
    store: new MemoryCredentialStore(),
  });
}

const challenge = (scope: string) => `Bearer error="insufficient_scope", scope="${scope}"`;

describe('ConnectorOAuth.refused: a step-up the server asks for', () => {
  it('suggests a command that, pasted into a shell, runs nothing the server slipped into its scopes', async () => {
    const hostile = "tools:read $(touch${IFS}pwned) `touch${IFS}pwned2` ';touch${IFS}pwned3;'";
    let error: unknown;
    try {
      await connectorOAuth().refused({ status: 403, wwwAuthenticate: challenge(hostile) });
    } catch (caught) {
      error = caught;
    }
    expect(ToolError.isInstance(error) && error.code).toBe('forbidden');
    // The message ends with the command in backticks (which the scopes hold too).
    const message = (error as Error).message;
    expect(message.endsWith('`')).toBe(true);
    const command = message.slice(message.indexOf('`toolplane auth login') + 1, -1);
    // The command as a shell runs it, with `toolplane` standing for a program printing its words.
    const dir = mkdtempSync(join(tmpdir(), 'scope-challenge-'));
    dirs.push(dir);
    const printed = execFileSync(
      '/bin/sh',
      ['-c', `toolplane() { printf '%s\\n' "$@"; }\n${command}`],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(readdirSync(dir)).toEqual([]);
    expect(printed.trimEnd().split('\n')).toEqual(['auth', 'login', 'prot', '--scope', hostile]);
  });

  it.each([
    ['a character no scope name has', 'tools:read tools:wr\u00e9te'],
    [
      'more scopes than any step-up needs',
      Array.from({ length: 65 }, (_, i) => `s${String(i)}`).join(' '),
    ],
  ])('lets the 403 stand for %s', async (_, scope) => {
    expect(await connectorOAuth().refused({ status: 403, wwwAuthenticate: challenge(scope) })).toBe(
      false,
    );
  });
});
