// The fleet settings `serve --http` reads from the environment and the config file.
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { instanceIdFor, requestStateKeyFor } from './fleet.js';

describe('instanceIdFor', () => {
  it('takes TOOLPLANE_INSTANCE_ID, else the config, else <hostname>-<pid>', () => {
    expect(instanceIdFor({ TOOLPLANE_INSTANCE_ID: 'gw-1' }, 'cfg')).toBe('gw-1');
    expect(instanceIdFor({ TOOLPLANE_INSTANCE_ID: '' }, 'cfg')).toBe('cfg');
    expect(instanceIdFor({}, undefined)).toBe(`${hostname()}-${String(process.pid)}`);
  });

  it('refuses an ID that would not fit a header or a log line, with invalid_argument', () => {
    for (const bad of ['a b', 'x\ny', '__proto__"', 'é', 'a'.repeat(129)]) {
      expect(() => instanceIdFor({ TOOLPLANE_INSTANCE_ID: bad }, undefined)).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });

  it('is checked in the config file too', () => {
    const problem = (http: object): string => {
      try {
        parseConfig(JSON.stringify({ http }), { file: 'toolplane.config.json' });
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    expect(problem({ instanceId: 'gw 1' })).toMatch(/http\.instanceId/);
    expect(problem({ drainMs: -1 })).toMatch(/http\.drainMs/);
    expect(problem({ drainMs: 120_001 })).toMatch(/http\.drainMs/);
    expect(problem({ instanceId: 'gw-1', drainMs: 0, allowedHosts: ['lb:443'] })).toBe('');
  });
});

describe('requestStateKeyFor', () => {
  it('takes TOOLPLANE_REQUEST_STATE_KEY, none when unset or empty', () => {
    const key = 'k'.repeat(32);
    expect(requestStateKeyFor({ TOOLPLANE_REQUEST_STATE_KEY: key })).toBe(key);
    expect(requestStateKeyFor({ TOOLPLANE_REQUEST_STATE_KEY: '' })).toBeUndefined();
    expect(requestStateKeyFor({})).toBeUndefined();
  });

  it('refuses a key shorter than 32 bytes with invalid_argument', () => {
    expect(() => requestStateKeyFor({ TOOLPLANE_REQUEST_STATE_KEY: 'short' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('takes http.replayTools in the config file, a list of names', () => {
    const parsed = (http: object) =>
      parseConfig(JSON.stringify({ http }), { file: 'toolplane.config.json' });
    expect(parsed({ replayTools: ['fx__elicit'] }).http.replayTools).toEqual(['fx__elicit']);
    expect(() => parsed({ replayTools: 'fx__elicit' })).toThrow(/replayTools/);
  });
});
