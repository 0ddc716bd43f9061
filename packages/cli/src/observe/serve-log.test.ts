import type { ToolCallRecord } from '@toolplane/gateway';
import { describe, expect, it } from 'vitest';
import { Output } from '../output.js';
import { createServeLog } from './serve-log.js';

// The JSON audit line of a call names its caller by one rule: the OAuth subject, else the
// token's client (a client-credentials grant names no subject), else the session.

function jsonLog(): {
  lines: () => Record<string, unknown>[];
  log: ReturnType<typeof createServeLog>;
} {
  let written = '';
  const output = new Output({
    stdout: { write: () => true },
    stderr: { write: (chunk: string) => (written += chunk) },
    json: false,
    env: {},
  });
  const log = createServeLog({
    output,
    log: { format: 'json', level: 'info', arguments: false },
  });
  const lines = (): Record<string, unknown>[] =>
    written
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { lines, log };
}

const call = (caller: Partial<ToolCallRecord>): ToolCallRecord => ({
  namespace: 'fx',
  tool: 'fx:delete-item',
  outcome: 'ok',
  durationMs: 1.5,
  sessionId: undefined,
  subject: undefined,
  requestId: 7,
  args: { id: 'x' },
  ...caller,
});

describe("serve's JSON audit line of a call", () => {
  it('names the subject, else the client, else the session, else anonymous', () => {
    const { lines, log } = jsonLog();
    log.observer.toolCall?.(call({ subject: 'alice', clientId: 'app', sessionId: 's-1' }));
    log.observer.toolCall?.(call({ clientId: 'svc-reports', sessionId: 's-2' }));
    log.observer.toolCall?.(call({ sessionId: 's-3' }));
    log.observer.toolCall?.(call({}));
    expect(lines().map((line) => [line.who, line.subject, line.client])).toEqual([
      ['subject:alice', 'alice', 'app'],
      ['client:svc-reports', undefined, 'svc-reports'],
      ['session:s-3', undefined, undefined],
      ['anonymous', undefined, undefined],
    ]);
  });
});
