import { defineTool } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardGateway, type DashboardGateway } from '../testing/dashboard-gateway.js';
import { loginCookie } from '../testing/login.js';

const TOKEN = 'dashboard-catalogue-token-0123456789';
const BULK = 2_050;

interface Catalogue {
  tools: { id: string }[];
  total?: number;
  more?: boolean;
}

// A real gateway whose catalogue is larger than the page the browser is sent at once.
describe('the catalogue API past the page it sends', () => {
  let served: DashboardGateway;
  let cookie: string;

  beforeAll(async () => {
    const tools = Array.from({ length: BULK }, (_, i) =>
      defineTool({
        name: `bulk_${String(i).padStart(4, '0')}`,
        description: `Bulk widget number ${String(i)}.`,
        input: { type: 'object' },
        run: () => 'done',
      }),
    );
    served = await startDashboardGateway(TOKEN, { tools });
    cookie = await loginCookie(served.ui, TOKEN);
  });
  afterAll(async () => {
    await served.close();
  });

  const catalogue = async (query: string): Promise<Catalogue> => {
    const url = new URL('api/tools', served.ui);
    url.searchParams.set('q', query);
    const response = await fetch(url, { headers: { cookie } });
    expect(response.status).toBe(200);
    return (await response.json()) as Catalogue;
  };

  it('sends the first 2,000 tools and counts them all', async () => {
    const all = await catalogue('');
    expect(all.tools).toHaveLength(2_000);
    expect(all.total).toBe(served.toolkit.index.size);
    expect(all.total).toBeGreaterThan(BULK);
  });

  it('says when a search found more than the matches it sends', async () => {
    expect(await catalogue('bulk widget')).toMatchObject({ more: true });
    const one = await catalogue('echo text unchanged');
    expect(one.more).toBe(false);
    expect(one.tools.map((t) => t.id)).toContain('fixture:echo');
  });
});
