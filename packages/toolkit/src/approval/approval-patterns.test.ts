import { afterEach, describe, expect, it } from 'vitest';
import { defineTool } from '../define-tool.js';
import { createToolkit, type Toolkit } from '../toolkit/toolkit.js';
import { lostApprovalGuards, unmatchedApprovalPatterns } from './approval-patterns.js';

const open: Toolkit[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((toolkit) => toolkit.close()));
});

const tool = (name: string) =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    input: { type: 'object' },
    run: () => name,
  });

function toolkit(): Toolkit {
  const created = createToolkit({ tools: [tool('delete_repo'), tool('list_repos')] });
  open.push(created);
  return created;
}

describe('unmatchedApprovalPatterns', () => {
  it('names each pattern that matches no tool, and why', () => {
    const unmatched = unmatchedApprovalPatterns(
      {
        tools: ['builtin:delete_*', 'github:delete_*', 'builtin:drop_*'],
        except: ['builtin:list_repos', 'gh:*'],
      },
      toolkit(),
    );
    expect(unmatched.map(({ list, pattern }) => [list, pattern])).toEqual([
      ['tools', 'github:delete_*'],
      ['tools', 'builtin:drop_*'],
      ['except', 'gh:*'],
    ]);
    expect(unmatched[0]?.message).toContain(
      `no server's namespace matches "github"; servers: builtin`,
    );
    expect(unmatched[0]?.message).toContain('run without asking');
    expect(unmatched[1]?.message).toContain('"builtin" has no such tool');
  });

  it('waits for a server that is not connected yet, whose tools are not known', () => {
    const kit = toolkit();
    kit.addConnector({ command: process.execPath, args: ['-e', ''] }, { namespace: 'later' });
    expect(unmatchedApprovalPatterns({ tools: ['later:delete_*', 'l*:x'] }, kit)).toEqual([]);
  });

  it('leaves out a pattern that may name a server the toolkit was not given', () => {
    const rules = { tools: ['github:delete_*', 'g*:drop_*', 'gitlab:delete_*'] };
    const unmatched = unmatchedApprovalPatterns(rules, toolkit(), { elsewhere: ['github'] });
    expect(unmatched.map(({ pattern }) => pattern)).toEqual(['gitlab:delete_*']);
    expect(unmatched[0]?.message).toContain(
      `no server's namespace matches "gitlab"; servers: builtin, github`,
    );
  });
});

describe('lostApprovalGuards', () => {
  it('names the tools a pattern guards in a namespace moved to a name it does not match', () => {
    const kit = toolkit();
    const moves = [{ from: 'builtin', to: 'core' }];
    expect(lostApprovalGuards({ tools: ['builtin:delete_*'] }, kit, moves)).toEqual([
      { pattern: 'builtin:delete_*', from: 'builtin', to: 'core', tools: ['builtin:delete_repo'] },
    ]);
    // A pattern that names the new namespace too keeps its guard.
    expect(lostApprovalGuards({ tools: ['{builtin,core}:delete_*'] }, kit, moves)).toEqual([]);
    expect(lostApprovalGuards({ tools: ['*:delete_*'] }, kit, moves)).toEqual([]);
    // So does one the policy asks for by another rule, and one `except` exempts under its new name
    // is lost.
    expect(
      lostApprovalGuards({ tools: ['builtin:delete_*'], unannotated: true }, kit, moves),
    ).toEqual([]);
    expect(
      lostApprovalGuards(
        { tools: ['builtin:delete_*'], unannotated: true, except: ['core:*'] },
        kit,
        moves,
      ),
    ).toHaveLength(1);
  });
});
