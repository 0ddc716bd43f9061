import type { ToolCallRecord } from '@toolplane/gateway';
import { describe, expect, it } from 'vitest';
import { jsonServeLog } from '../testing/json-log.js';

// The JSON audit line of a call names its caller by one rule: the OAuth subject, else the
// token's client (a client-credentials grant names no subject), else the session.

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
    const { lines, log } = jsonServeLog();
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
