import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { afterEach, describe, expect, it } from 'vitest';
import { serveHttp, type HttpGateway } from './serve.js';

const TOKEN = 'healthz-test-token-0123456789';
const toolkit = useFixtureToolkit();
let served: HttpGateway | undefined;

afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** The filter entries `/healthz` tells the token holder match no tool of `fx`. */
async function unmatched(url: URL): Promise<string[]> {
  const answer = await fetch(new URL('/healthz', url), {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const body = (await answer.json()) as {
    connectors: { namespace: string; unmatchedFilter?: { entry: string }[] }[];
  };
  const fx = body.connectors.find((status) => status.namespace === 'fx');
  return (fx?.unmatchedFilter ?? []).map((problem) => problem.entry);
}

describe('GET /healthz as the gateway is reconfigured', () => {
  it('names the entries of the filters in force that match no tool, not those it started with', async () => {
    served = await serveHttp(toolkit, {
      port: 0,
      token: TOKEN,
      filter: { fx: { deny: ['ech'] } },
    });
    expect(await unmatched(served.url)).toEqual(['ech']);

    served.reconfigure({ filter: { fx: { deny: ['echo', 'ad'] } } });
    expect(await unmatched(served.url)).toEqual(['ad']);

    served.reconfigure({});
    expect(await unmatched(served.url)).toEqual([]);
  });
});
