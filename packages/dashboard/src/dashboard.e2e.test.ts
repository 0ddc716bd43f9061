import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '@toolplane/fixtures';
import { describePinChange, type ApprovalAnswer } from '@toolplane/toolkit';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './testing/chromium.js';
import { startDashboardGateway, type DashboardGateway } from './testing/dashboard-gateway.js';
import { loginCookie } from './testing/login.js';

const TOKEN = 'dashboard-e2e-token-0123456789';
const OUT = join(repoRoot, '.ci', 'out');
const HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">';

describe('the dashboard in Chromium', () => {
  let served: DashboardGateway;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  // The person asked to approve a call of fixture:delete-item: the test answers for them.
  const approvers: ((answer: ApprovalAnswer) => void)[] = [];

  const shot = async (name: string): Promise<void> => {
    await page.screenshot({ path: join(OUT, `dashboard-${name}.png`), fullPage: true });
  };

  beforeAll(async () => {
    await mkdir(OUT, { recursive: true });
    served = await startDashboardGateway(TOKEN, {
      approval: {
        destructive: false,
        tools: ['fixture:delete-item'],
        ask: () => new Promise<ApprovalAnswer>((answer) => approvers.push(answer)),
      },
    });
    chromium = await launchChromium();
    context = chromium.context;
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      // A CSP refusal shows as a console error: the app must need nothing the policy forbids.
      if (message.type() === 'error' && !message.text().includes('401')) {
        pageErrors.push(message.text());
      }
    });
  });
  afterAll(async () => {
    await chromium.close();
    await served.close();
  });

  it('asks for the token, refuses a wrong one, and logs in with the right one', async () => {
    await page.goto(served.ui.href);
    await page.getByLabel('Gateway token').fill('not-the-token-at-all');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not accepted');
    await shot('login');
    await page.getByLabel('Gateway token').fill(TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('header nav').waitFor();
    expect(page.url()).not.toContain(TOKEN);
    const [cookie] = await context.cookies(served.ui.href);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/ui' });
    expect(cookie?.value).not.toContain(TOKEN);
  });

  it('shows the connectors with their state, and reconnects one on demand', async () => {
    await page.goto(`${served.ui.href}#/connectors`);
    const row = page.locator('tr[data-namespace="fixture"]');
    await expect.poll(() => row.locator('.state').textContent()).toBe('connected');
    const before = served.toolkit.connector('fixture')?.pid;
    await shot('connectors');
    await row.getByRole('button', { name: 'Reconnect' }).click();
    await expect
      .poll(() => {
        const c = served.toolkit.connector('fixture');
        return c?.state === 'connected' && c.pid !== before;
      })
      .toBe(true);
    await expect.poll(() => row.locator('.state').textContent()).toBe('connected');
  });

  it('searches the catalogue, calls a tool from its form and shows hostile text as text', async () => {
    await page.goto(`${served.ui.href}#/tools`);
    await page.locator('#tool-search').fill('echo text unchanged');
    await page.locator('ul.tools[data-query="echo text unchanged"]').waitFor();
    await page.locator('[data-tool="fixture:echo"]').click();
    await page.locator('input[name="text"]').fill(HOSTILE);
    await page.getByRole('button', { name: 'Call' }).click();
    const result = page.locator('#result pre');
    await expect.poll(() => result.textContent()).toBe(HOSTILE);
    expect(await page.locator('#result img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    await shot('tools');
  });

  it('renders text, image and resource blocks', async () => {
    await page.goto(`${served.ui.href}#/tools/fixture%3Amixed`);
    await page.getByRole('button', { name: 'Call' }).click();
    await page.locator('#result img').waitFor();
    expect(await page.locator('#result .resource pre').textContent()).toBe('a note');
    expect(
      await page
        .locator('#result img')
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBe(1);
  });

  it('shows the calls in the live log, with progress and outcome', async () => {
    await page.goto(`${served.ui.href}#/tools/fixture%3Aprogress`);
    await page.locator('input[name="steps"]').fill('3');
    await page.getByRole('button', { name: 'Call' }).click();
    await page.locator('#result').waitFor();
    await page.goto(`${served.ui.href}#/log`);
    const rows = page.locator('#call-log tr.call');
    await expect
      .poll(() =>
        rows.filter({ hasText: 'fixture:progress' }).locator('.outcome').first().textContent(),
      )
      .toBe('ok');
    expect(await rows.filter({ hasText: 'fixture:echo' }).count()).toBeGreaterThan(0);
    expect(await rows.filter({ hasText: 'fixture:progress' }).locator('progress').count()).toBe(1);
    // A call made by someone else (here the toolkit itself) arrives over the event stream.
    await served.toolkit.callTool('fixture:add', { a: 1, b: 2 });
    await expect.poll(() => rows.filter({ hasText: 'fixture:add' }).count()).toBe(1);
    await shot('log');
  });

  it('shows a call waiting for approval as such, then its outcome', async () => {
    await page.goto(`${served.ui.href}#/log`);
    const outcome = page
      .locator('#call-log tr.call')
      .filter({ hasText: 'fixture:delete-item' })
      .locator('.outcome');
    const held = served.toolkit.callTool('fixture:delete-item', { id: 'e2e' });
    await expect.poll(() => outcome.first().textContent()).toBe('waiting for approval');
    expect(approvers).toHaveLength(1);
    approvers[0]?.('accept');
    await held;
    await expect.poll(() => outcome.first().textContent()).toBe('ok');
  });

  it('shows a tool the upstream server adds, without reloading the page', async () => {
    await page.goto(`${served.ui.href}#/tools`);
    await page.locator('[data-tool="fixture:echo"]').waitFor();
    // Kept only as long as the page is not reloaded.
    await page.evaluate(() => {
      (globalThis as { marker?: string }).marker = 'same page';
    });
    await served.toolkit.callTool('fixture:define-tool', { name: 'brand_new' });
    await page.locator('[data-tool="fixture:brand_new"]').waitFor();
    expect(await page.evaluate(() => (globalThis as { marker?: string }).marker)).toBe('same page');
  });

  it('names the search field, each row button by its row, and the page and tool shown', async () => {
    await page.goto(`${served.ui.href}#/connectors`);
    await page.getByRole('button', { name: 'Reconnect fixture', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Connectors' }).getAttribute('aria-current')).toBe(
      'page',
    );
    await page.goto(`${served.ui.href}#/tools/fixture%3Aecho`);
    await page.getByRole('searchbox', { name: 'Search tools', exact: true }).waitFor();
    const current = page.getByRole('link', { name: 'fixture:echo', exact: true });
    expect(await current.getAttribute('aria-current')).toBe('page');
    expect(await page.getByRole('link', { name: 'Connectors' }).getAttribute('aria-current')).toBe(
      null,
    );
  });

  it('names its own icon, so the browser asks the gateway for no /favicon.ico (a 401)', async () => {
    await page.goto(`${served.ui.href}#/connectors`);
    expect(await page.locator('link[rel~="icon"]').getAttribute('href')).toMatch(/^data:/);
  });

  it('opens an address that is not valid percent-encoding on the page it names', async () => {
    const fresh = await context.newPage();
    fresh.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      await fresh.goto(`${served.ui.href}#/tools/fixture%3Aecho%E0%A4%A`);
      await fresh.locator('#page[data-page="tools"] .try .error').waitFor();
    } finally {
      await fresh.close();
    }
    // And on a page already open (its hashchange).
    await page.goto(`${served.ui.href}#/log/%E0%A4%A`);
    await page.locator('#page[data-page="log"]').waitFor();
  });

  it('shows prompts, resources and charts', async () => {
    await page.goto(`${served.ui.href}#/prompts`);
    await page.getByText('fixture:echo').waitFor();
    await shot('prompts');
    await page.goto(`${served.ui.href}#/resources`);
    await page.getByText('fixture://readme').waitFor();
    await shot('resources');
    await page.goto(`${served.ui.href}#/charts`);
    await page.locator('#totals').waitFor();
    await page.locator('.chart canvas').first().waitFor();
    expect(await page.locator('#totals').textContent()).toMatch(/^\d+ calls/);
    await shot('charts');
    // The docs' picture: the catalogue with a result.
    await page.goto(`${served.ui.href}#/tools/fixture%3Amixed`);
    await page.getByRole('button', { name: 'Call' }).click();
    await page.locator('#result img').waitFor();
    await shot('overview');
    await copyFile(join(OUT, 'dashboard-overview.png'), join(OUT, 'dashboard.png'));
    expect(pageErrors).toEqual([]);
  });
});

describe('the Changes page in Chromium', () => {
  let served: DashboardGateway;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const pageErrors: string[] = [];
  // What a rug-pulling server might put in a description: terminal escapes and markup.
  const RUG = `\u001b[2JNow also deletes files.\u0007 ${HOSTILE}`;

  beforeAll(async () => {
    await mkdir(OUT, { recursive: true });
    served = await startDashboardGateway(TOKEN, { pinning: 'block' });
    chromium = await launchChromium();
    page = await chromium.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    await chromium.close();
    await served.close();
  });

  it('shows a changed tool with its diff, as text, without a reload, and accepts it', async () => {
    await page.goto(`${served.ui.href}#/changes`);
    await page.getByLabel('Gateway token').fill(TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('#no-changes').waitFor();
    await page.evaluate(() => {
      (globalThis as { marker?: string }).marker = 'same page';
    });
    await served.toolkit.callTool('fixture:change-echo', { description: RUG });
    const change = page.locator('[data-change="fixture:echo"]');
    await change.waitFor();
    const [pending] = (await served.pins?.listChanges('fixture')) ?? [];
    if (pending === undefined) throw new Error('the store recorded no change');
    // The very text `toolplane tools changes` prints, shown as text.
    expect(await change.locator('pre.diff').textContent()).toBe(
      describePinChange(pending, { maxLines: 200 }),
    );
    expect(await change.locator('pre.diff').textContent()).toContain(`\\u{1b}[2JNow also`);
    expect(await change.locator('pre.diff').textContent()).toContain('<script>window.pwned=1');
    expect(await change.locator('.fields').textContent()).toBe('description');
    expect(await change.locator('.accept-command').textContent()).toBe(
      `toolplane tools accept fixture:echo --fingerprint ${pending.current.fingerprint}`,
    );
    expect(await page.locator('#changes script, #changes img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.evaluate(() => (globalThis as { marker?: string }).marker)).toBe('same page');
    await page.screenshot({ path: join(OUT, 'dashboard-changes.png'), fullPage: true });

    const sent = page.waitForRequest((request) => request.url().endsWith('/api/accept'));
    await change.getByRole('button', { name: 'Accept fixture:echo', exact: true }).click();
    // The button sends the fingerprint of the definition the page showed.
    expect(JSON.parse((await sent).postData() ?? '{}')).toEqual({
      namespace: 'fixture',
      tool: 'echo',
      fingerprint: pending.current.fingerprint,
    });
    await page.locator('#no-changes').waitFor();
    const audit = await served.pins?.listAudit({ limit: 1000 });
    expect(audit?.filter((r) => r.kind === 'pin.accepted')).toEqual([
      expect.objectContaining({
        toolId: 'fixture:echo',
        who: 'dashboard',
        fingerprint: pending.current.fingerprint,
      }),
    ]);
    // Accepted: the gateway serves the tool again once its gate has heard the store.
    await expect
      .poll(() =>
        served.toolkit.callTool('fixture:echo', { text: 'back' }).then(
          () => 'served',
          (error: unknown) => (error as { code?: string }).code,
        ),
      )
      .toBe('served');
    expect(pageErrors).toEqual([]);
  });
});

describe('the dashboard refuses hostile requests', () => {
  let served: DashboardGateway;
  let cookie: string;

  beforeAll(async () => {
    served = await startDashboardGateway(TOKEN);
    cookie = await loginCookie(served.ui, TOKEN);
  });
  afterAll(async () => {
    await served.close();
  });

  const api = (route: string, init: RequestInit = {}): Promise<Response> =>
    fetch(new URL(`api/${route}`, served.ui), init);
  const post = (route: string, body: unknown, headers: Record<string, string> = {}) =>
    api(route, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: served.ui.origin, cookie, ...headers },
      body: JSON.stringify(body),
    });
  const codeOf = async (response: Response): Promise<string | undefined> =>
    ((await response.json()) as { error?: { code?: string } }).error?.code;

  it('answers the login page, with a strict CSP, to a caller without the token', async () => {
    const page = await fetch(served.ui);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(await page.text()).not.toContain('<script>');
  });

  it('refuses the API without a session (401), even with the token in the URL', async () => {
    const bare = await api('tools');
    expect(bare.status).toBe(401);
    expect(await codeOf(bare)).toBe('unauthorized');
    expect((await api(`tools?token=${TOKEN}`)).status).toBe(401);
    expect((await api('tools', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      401,
    );
  });

  it('refuses a forged or altered cookie (401)', async () => {
    const [id = '', signature = ''] = cookie.split('=')[1]?.split('.') ?? [];
    const forged = [
      'toolplane_ui=made-up.signature',
      `toolplane_ui=${id}.${signature.slice(0, -2)}AA`,
      `toolplane_ui=${id}`,
      `toolplane_ui=other.${signature}`,
    ];
    for (const value of forged) {
      const response = await api('connectors', { headers: { cookie: value } });
      expect(response.status).toBe(401);
    }
    expect((await api('connectors', { headers: { cookie } })).status).toBe(200);
  });

  it('refuses a state-changing request from a foreign Origin or without one (403)', async () => {
    const foreign = await post(
      'call',
      { tool: 'fixture:echo', arguments: { text: 'x' } },
      {
        origin: 'http://evil.example',
      },
    );
    expect(foreign.status).toBe(403);
    const login = await post('login', { token: TOKEN }, { origin: 'http://evil.example' });
    expect(login.status).toBe(403);
    const none = await api('reconnect', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ namespace: 'fixture' }),
    });
    expect(none.status).toBe(403);
    expect(await codeOf(none)).toBe('unauthorized');
  });

  it('refuses a wrong token, a form post, and malformed calls with a code', async () => {
    const wrong = await post('login', { token: 'wrong-token-wrong-token' }, { cookie: '' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const form = await api('call', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: served.ui.origin,
        cookie,
      },
      body: 'tool=fixture%3Aecho',
    });
    expect(form.status).toBe(415);
    expect(await codeOf(await post('call', { tool: 'fixture:echo', arguments: [1] }))).toBe(
      'invalid_argument',
    );
    expect(await codeOf(await post('call', { tool: 'nope:none' }))).toBe('tool_not_found');
    expect(await codeOf(await post('call', { tool: 'fixture:echo', arguments: { text: 5 } }))).toBe(
      'validation',
    );
    expect(await codeOf(await post('reconnect', { namespace: 'nope' }))).toBe('not_found');
  });

  it('guards accepting a pin change as every other POST, and says when pinning is off', async () => {
    const target = { namespace: 'fixture', tool: 'echo' };
    expect((await post('accept', target, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await post('accept', target, { cookie: '' })).status).toBe(401);
    expect(await codeOf(await post('accept', { namespace: 'fixture', tool: 7 }))).toBe(
      'invalid_argument',
    );
    expect(await codeOf(await post('accept', target))).toBe('invalid_argument');
    const listed = await api('changes', { headers: { cookie } });
    expect(await listed.json()).toEqual({ pinning: false, changes: [] });
  });

  it('answers a hostile value as data, and keeps serving', async () => {
    const response = await post('call', { tool: 'fixture:echo', arguments: { text: HOSTILE } });
    const answer = (await response.json()) as { content: { text: string }[] };
    expect(answer.content[0]?.text).toBe(HOSTILE);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect((await api('connectors', { headers: { cookie } })).status).toBe(200);
  });

  it('logs out: the old cookie no longer works', async () => {
    expect((await post('logout', {})).status).toBe(200);
    expect((await api('connectors', { headers: { cookie } })).status).toBe(401);
  });
});
