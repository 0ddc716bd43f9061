import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './testing/chromium.js';
import { startDashboardGateway, type DashboardGateway } from './testing/dashboard-gateway.js';
import { loginCookie } from './testing/login.js';

const TOKEN = 'dashboard-try-it-errors-token-0123456789';

// A try-it call that fails on the server's side answers 502 (a tool of the upstream server) or
// 504 (past its timeout): the page shows the code and the message all the same.
describe('the try-it form of a tool that fails, in Chromium', () => {
  let served: DashboardGateway;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    served = await startDashboardGateway(TOKEN);
    chromium = await launchChromium();
    const cookie = await loginCookie(served.ui, TOKEN);
    const [name = '', value = ''] = cookie.split('=');
    await chromium.context.addCookies([{ name, value, url: served.ui.href }]);
    page = await chromium.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    await chromium.close();
    await served.close();
  });

  it("shows the upstream tool's failure, code and message, as the call's answer", async () => {
    await page.goto(`${served.ui.href}#/tools/fixture%3Afail`);
    await page.locator('input[name="message"]').fill('the disk is full');
    const answered = page.waitForResponse((response) => response.url().endsWith('/api/call'));
    await page.getByRole('button', { name: 'Call' }).click();
    expect((await answered).status()).toBe(502);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('execution: the disk is full');
    expect(pageErrors).toEqual([]);
  });
});
