import { join } from 'node:path';
import { ToolError } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { openToolkit } from './open.js';

const file = join('project', 'toolplane.config.json');

function problem(config: unknown): ToolError {
  try {
    parseConfig(JSON.stringify(config), { file, env: {} });
  } catch (error) {
    if (ToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an invalid_config error');
}

describe('parseConfig with approval', () => {
  it('reads the approval policy as it is given', () => {
    const approval = {
      destructive: true,
      unannotated: true,
      tools: ['github:delete_*', 'bank:*'],
      except: ['fs:rm_dry_run'],
      timeoutMs: 60_000,
      remember: 'session',
    };
    expect(parseConfig(JSON.stringify({ approval }), { file, env: {} }).approval).toEqual(approval);
    expect(parseConfig('{}', { file, env: {} }).approval).toBeUndefined();
  });

  it('suggests the key meant for a misspelt one', () => {
    const error = problem({ approval: { destructve: true } });
    expect(error.code).toBe('invalid_config');
    expect(error.message).toMatch(
      /approval: unknown key "destructve"; did you mean "destructive"\?/,
    );
  });

  it.each([
    [{ tools: ['fs:*a*a*a*a*a*a*a*a*a*b'] }, /approval: .*wildcards/],
    [{ except: ['delete_everything'] }, /approval: .*namespace:tool/],
    [{ tools: ['fs:{a,{b,c}}'] }, /approval: .*nests braces/],
    [{ timeoutMs: 10 }, /approval\.timeoutMs: /],
    [{ remember: 'always' }, /approval\.remember: must be "never" or "session"/],
  ])('refuses %j with invalid_config naming the setting', (approval, message) => {
    const error = problem({ approval });
    expect(error.code).toBe('invalid_config');
    expect(error.message).toMatch(message);
  });
});

describe('openToolkit with approval', () => {
  it('builds the toolkit with the policy: a matching call outside a served session is refused', async () => {
    const config = parseConfig(
      JSON.stringify({ store: 'memory', approval: { tools: ['builtin:text_*'] } }),
      { file, env: {} },
    );
    const opened = await openToolkit(config, { connectors: 'none' });
    try {
      const code = await opened.toolkit.callTool('builtin:text_stats', { text: 'a b' }).then(
        () => undefined,
        (error: unknown) => (error as { code?: string }).code,
      );
      expect(code).toBe('approval_denied');
      const now = await opened.toolkit.callTool('builtin:time_now', {});
      expect(now.structured).toBeDefined();
    } finally {
      await opened.close();
    }
  });
});
