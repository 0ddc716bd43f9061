import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { haproxyConfig } from './testing/fleet.js';

const doc = readFileSync(new URL('../../../docs/fleet.md', import.meta.url), 'utf8');

describe('docs/fleet.md', () => {
  it('quotes the HAProxy configuration the fleet launcher writes, for its deployment options', () => {
    const block = /```haproxy\n([\s\S]*?)```/.exec(doc)?.[1];
    const deployment = haproxyConfig({
      port: 443,
      bind: ':443 ssl crt /etc/haproxy/mcp.pem',
      checkIntervalMs: 2000,
      fastCheckIntervalMs: 500,
      rise: 2,
      servers: [1, 2, 3].map((i) => ({
        name: `gw${String(i)}`,
        host: `10.0.0.1${String(i)}`,
        port: 8765,
      })),
    });
    expect(block).toBe(deployment);
  });
});
