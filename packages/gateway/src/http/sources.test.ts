import { describe, expect, it } from 'vitest';
import { plainAddress, SourceLimits, sourceKey } from './sources.js';

describe('sourceKey', () => {
  it('counts an IPv4 address as itself and an IPv6 address by its /64, however written', () => {
    expect(sourceKey('127.0.0.2')).toBe('127.0.0.2');
    expect(sourceKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('2001:0DB8:0001:0002::9')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(sourceKey('::1')).toBe('0:0:0:0::/64');
    expect(sourceKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});

describe('plainAddress', () => {
  it('reads an IPv4-mapped IPv6 address as IPv4, and refuses what is no address', () => {
    expect(plainAddress('::ffff:127.0.0.2')).toBe('127.0.0.2');
    expect(plainAddress('::1')).toBe('::1');
    expect(plainAddress('unknown')).toBeUndefined();
    expect(plainAddress(undefined)).toBeUndefined();
  });
});

describe('SourceLimits', () => {
  it('refuses a trusted proxy that is no address or subnet', () => {
    for (const entry of ['10.0.0.0/33', 'proxy.local', '10.0.0.1/8/2', '::1/129']) {
      expect(
        () => new SourceLimits({ maxConnectionsPerSource: 1, trustedProxies: [entry] }),
      ).toThrow(expect.objectContaining({ code: 'invalid_config' }) as Error);
    }
    expect(
      () =>
        new SourceLimits({
          maxConnectionsPerSource: 1,
          trustedProxies: ['10.0.0.0/8', 'fd00::/8'],
        }),
    ).not.toThrow();
  });
});
