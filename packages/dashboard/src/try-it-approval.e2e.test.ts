import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { callModern, repoRoot } from '@toolplane/fixtures';
import {
  auditApprovals,
  createMemoryPinStore,
  type PinStore,
  type StoredAuditRecord,
} from '@toolplane/toolkit';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './testing/chromium.js';
import { startDashboardGateway, type DashboardGateway } from './testing/dashboard-gateway.js';

// The try-it form on a tool the approval policy guards, with the policy's own question (no `ask`
// of the embedder's): the logged-in operator sees it in the page and answers it there.

const TOKEN = 'dashboard-try-it-approval-token-0123456789';
const OUT = join(repoRoot, '.ci', 'out');

// Each login's try-it calls run in a session of its own: `dashboard:` and a digest of the login.
const LOGIN_SESSION = expect.stringMatching(/^session:dashboard:[\w-]{16}$/);

describe('the try-it form of a tool that needs approval, in Chromium', () => {
  let served: DashboardGateway;
  let audit: PinStore;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const pageErrors: string[] = [];

  const approvals = async (): Promise<StoredAuditRecord[]> =>
    // The operator's: a call of another caller (no session) is audited as `anonymous`'s.
    (await audit.listAudit()).filter(
      (record) => record.kind.startsWith('approval.') && record.who !== 'anonymous',
    );

  const deleteCalls = () => served.feed.recent().filter((c) => c.tool === 'fixture:delete-item');

  const deletedItems = async (): Promise<string[]> => {
    const result = await served.toolkit.callTool('fixture:deleted-items', {});
    return result.structured as string[];
  };

  const callDelete = async (id: string): Promise<void> => {
    await page.goto(`${served.ui.href}#/tools/fixture%3Adelete-item`);
    await page.locator('input[name="id"]').fill(id);
    await page.getByRole('button', { name: 'Call' }).click();
    await page.locator('#question').waitFor();
  };

  beforeAll(async () => {
    audit = createMemoryPinStore();
    served = await startDashboardGateway(TOKEN, {
      requestStateKey: 'a-fleet-wide-request-state-key-of-32+-bytes',
      approval: {
        destructive: false,
        tools: ['fixture:delete-item'],
        onDecision: auditApprovals(audit),
      },
    });
    chromium = await launchChromium();
    page = await chromium.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(served.ui.href);
    await page.getByLabel('Gateway token').fill(TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('header nav').waitFor();
  });
  afterAll(async () => {
    await chromium.close();
    await served.close();
    await audit.close();
  });

  it('shows the approval question, runs the call once approved, and audits the dashboard as approver', async () => {
    await callDelete('ui-approved');
    const question = page.locator('#question');
    // The text the policy asks any client: the tool, its server, the policy, the arguments.
    const text = await question.locator('.question-text').textContent();
    expect(text).toContain('Approve a call to tool "fixture:delete-item" on server "fixture"?');
    expect(text).toContain('"id": "ui-approved"');
    // Held, waiting for this answer, as the live log says; nothing ran yet.
    expect(deleteCalls()).toMatchObject([{ waiting: 'approval' }]);
    expect(await deletedItems()).not.toContain('ui-approved');
    await mkdir(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, 'dashboard-approval.png'), fullPage: true });
    await question.locator('input[name="approve"]').check();
    // Another caller's call of the tool, refused (nobody to ask), re-renders the page (its
    // recent calls): what the operator typed and ticked stays.
    await served.toolkit
      .callTool('fixture:delete-item', { id: 'elsewhere' })
      .catch(() => undefined);
    await page.locator('tr.call[data-outcome="approval_denied"]').waitFor();
    expect(await page.locator('form.try-form input[name="id"]').first().inputValue()).toBe(
      'ui-approved',
    );
    expect(await question.locator('input[name="approve"]').isChecked()).toBe(true);
    await question.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('#result pre').textContent()).toBe('deleted ui-approved');
    expect(await page.locator('#question').count()).toBe(0);
    expect((await deletedItems()).filter((id) => id === 'ui-approved')).toEqual(['ui-approved']);
    expect(await approvals()).toMatchObject([
      { kind: 'approval.asked', toolId: 'fixture:delete-item', who: LOGIN_SESSION },
      {
        kind: 'approval.granted',
        toolId: 'fixture:delete-item',
        who: LOGIN_SESSION,
        detail: { reason: 'accepted' },
      },
    ]);
    // The operator's call, the first of the tool; the other caller's ended approval_denied.
    expect(deleteCalls().map((c) => c.outcome)).toEqual(['ok', 'approval_denied']);
  });

  it('refuses the call when the operator declines, and runs nothing', async () => {
    await callDelete('ui-declined');
    await page.locator('#question').getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^approval_denied: /);
    expect(await deletedItems()).not.toContain('ui-declined');
    expect((await approvals()).at(-1)).toMatchObject({
      kind: 'approval.refused',
      who: LOGIN_SESSION,
      detail: { reason: 'declined' },
    });
  });

  it('does not take Approve without the approve box ticked for an approval', async () => {
    await callDelete('ui-unticked');
    await page.locator('#question').getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Tick "approve"');
    // Still asked: declining it ends the call.
    await page.locator('#question').getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^approval_denied: /);
    expect(await deletedItems()).not.toContain('ui-unticked');
    expect(pageErrors).toEqual([]);
  });

  it("shows a 2026 client's approval call handed on to its retry as such in the live log", async () => {
    const headers = { authorization: `Bearer ${TOKEN}` };
    const mcp = served.gateway.url;
    const asked = await callModern(mcp, 'fixture__delete-item', { id: 'ui-handed' }, { headers });
    expect(asked.result?.resultType).toBe('input_required');
    await page.goto(`${served.ui.href}#/log`);
    const row = page.locator('#call-log tr.call[data-outcome="input_required"]');
    await expect
      .poll(() => row.locator('.outcome').textContent())
      .toBe('input required: handed to the retry');
    expect(await row.getAttribute('class')).toBe('call handed-on');
    const [key = ''] = Object.keys(asked.result?.inputRequests ?? {});
    const done = await callModern(
      mcp,
      'fixture__delete-item',
      { id: 'ui-handed' },
      {
        headers,
        params: {
          requestState: asked.result?.requestState,
          inputResponses: { [key]: { action: 'accept', content: { approve: true } } },
        },
      },
    );
    expect(done.result?.content?.[0]?.text).toBe('deleted ui-handed');
    // The retry is the call that ran; the charts count no error for the round handed on.
    const failed = served.feed
      .recent()
      .filter((c) => !['ok', 'input_required'].includes(c.outcome ?? 'ok'));
    expect(served.feed.stats().errors).toBe(failed.length);
  });
});
