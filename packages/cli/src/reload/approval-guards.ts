import { lostApprovalGuards, type Toolkit } from '@toolplane/toolkit';
import type { CliConfig } from '../config.js';
import type { ReloadPlan } from './plan.js';

/**
 * Why an edit cannot apply while running, when it moves a server the running approval policy
 * guards to another namespace (the same command or URL under another key): its tools would come
 * back under a name no pattern of the policy matches, and run without asking, for approval's
 * rules change only on restart. `undefined` when the edit keeps every guard.
 */
export function lostGuardsRefusal(
  plan: ReloadPlan,
  running: CliConfig,
  toolkit: Pick<Toolkit, 'index'>,
): string | undefined {
  if (running.approval === undefined || plan.removed.length === 0 || plan.added.length === 0) {
    return undefined;
  }
  const source = (c: CliConfig['connectors'][number]): string =>
    JSON.stringify([c.transport, c.source]);
  const moves = plan.removed.flatMap((from) => {
    const before = running.connectors.find((c) => c.namespace === from);
    const after = plan.added.find((c) => before !== undefined && source(c) === source(before));
    return after === undefined ? [] : [{ from, to: after.namespace }];
  });
  const lost = lostApprovalGuards(running.approval, toolkit, moves);
  if (lost.length === 0) return undefined;
  const what = lost
    .map(
      ({ pattern, from, to, tools }) =>
        `it moves server "${from}" to "${to}", and the running approval pattern "${pattern}" guards ${tools.join(', ')}`,
    )
    .join('; ');
  return `${what}: under the new name those tools would run without asking, as approval changes only on restart. Restart toolplane serve to apply this edit (with approval naming the new namespace), or keep the old name`;
}
