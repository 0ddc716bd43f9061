import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { createToolkit, type Toolkit } from '../toolkit/toolkit.js';
import { auditApprovals } from './approval-audit.js';
import { createMemoryPinStore } from './memory-pin-store.js';

const open: Toolkit[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((toolkit) => toolkit.close()));
});

const dropTable = defineTool({
  name: 'drop_table',
  description: 'Drops a table.',
  input: z.object({ table: z.string() }),
  annotations: { destructiveHint: true },
  run: ({ table }) => `dropped ${table}`,
});

describe('auditApprovals', () => {
  it('keeps every approval asked, granted and refused in the audit log, arguments as a digest', async () => {
    const pins = createMemoryPinStore();
    const answers = ['accept', 'decline'] as const;
    let asked = 0;
    const toolkit = createToolkit({
      tools: [dropTable],
      approval: {
        ask: () => Promise.resolve(answers[asked++] ?? 'cancel'),
        onDecision: auditApprovals(pins),
      },
    });
    open.push(toolkit);
    await toolkit.callTool('builtin:drop_table', { table: 'users' });
    await expect(toolkit.callTool('builtin:drop_table', { table: 'orders' })).rejects.toMatchObject(
      { code: 'approval_denied' },
    );
    await expect.poll(async () => (await pins.listAudit()).length).toBe(4);
    const records = await pins.listAudit();
    expect(records.map((r) => r.kind)).toEqual([
      'approval.asked',
      'approval.granted',
      'approval.asked',
      'approval.refused',
    ]);
    expect(records.every((r) => r.toolId === 'builtin:drop_table')).toBe(true);
    expect(records[3]?.detail).toMatchObject({ policy: 'destructive', reason: 'declined' });
    expect(JSON.stringify(records)).not.toContain('orders');
    await pins.close();
  });
});
