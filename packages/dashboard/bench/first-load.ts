// Dashboard first load in Chromium: bytes transferred and time to interactive (the page's first
// control usable), for the login page and for the tool catalogue of a logged-in operator, each
// in a fresh browser context (empty cache). The floor is a bare request of the gateway's
// /healthz in the same browser: the figures are ratios to it, medians of RUNS loads.
import { chromium, type BrowserContext } from 'playwright-core';
import { startDashboardGateway } from '../src/testing/dashboard-gateway.js';

const RUNS = 9;
const TOKEN = 'dashboard-bench-token-0123456789';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Loads `url` in a fresh context and waits for `ready`; bytes over the wire and ms taken. */
async function load(
  context: BrowserContext,
  url: string,
  ready: string,
): Promise<{ bytes: number; ms: number }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  let bytes = 0;
  cdp.on('Network.loadingFinished', (event: { encodedDataLength: number }) => {
    bytes += event.encodedDataLength;
  });
  const start = performance.now();
  await page.goto(url);
  await page.locator(ready).first().waitFor();
  const ms = performance.now() - start;
  await page.close();
  return { bytes, ms };
}

const served = await startDashboardGateway(TOKEN);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ARGS,
});
try {
  const login = await fetch(new URL('api/login', served.ui), {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: served.ui.origin },
    body: JSON.stringify({ token: TOKEN }),
  });
  const [name = '', value = ''] = (login.headers.get('set-cookie') ?? '').split(';')[0]!.split('=');
  const floor: number[] = [];
  const loginPage = { bytes: [] as number[], ms: [] as number[] };
  const catalogue = { bytes: [] as number[], ms: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    for (const [target, url, ready, cookie] of [
      [undefined, new URL('/healthz', served.ui).href, 'body', false],
      [loginPage, served.ui.href, 'input[name="token"]', false],
      [catalogue, `${served.ui.href}#/tools`, '[data-tool="fixture:echo"]', true],
    ] as const) {
      const context = await browser.newContext();
      if (cookie) await context.addCookies([{ name, value, url: served.ui.href }]);
      const { bytes, ms } = await load(context, url, ready);
      await context.close();
      if (target === undefined) floor.push(ms);
      else {
        target.bytes.push(bytes);
        target.ms.push(ms);
      }
    }
  }
  const f = median(floor);
  console.log(`floor: /healthz loaded in a fresh context, median ${f.toFixed(1)} ms`);
  for (const [label, m] of [
    ['login page', loginPage],
    ['tool catalogue (logged in)', catalogue],
  ] as const) {
    const ms = median(m.ms);
    console.log(
      `${label}: ${(median(m.bytes) / 1024).toFixed(1)} KiB transferred, time to interactive median ${ms.toFixed(1)} ms = ${(ms / f).toFixed(2)}x the floor`,
    );
  }
} finally {
  await browser.close();
  await served.close();
}
