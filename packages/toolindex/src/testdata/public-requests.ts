import { readFileSync } from 'node:fs';
import type { Tool } from '@toolplane/toolmodel';
import type { QueryCase } from './queries.js';

interface VendoredSample {
  readonly namespace: string;
  readonly tools: readonly { readonly name: string; readonly description: string }[];
  readonly requests: readonly {
    readonly id: string;
    readonly request: string;
    readonly tool: string;
  }[];
}

let sample: VendoredSample | undefined;

function load(): VendoredSample {
  sample ??= JSON.parse(
    readFileSync(new URL('bfcl-live-simple.json', import.meta.url), 'utf8'),
  ) as VendoredSample;
  return sample;
}

/**
 * The functions of the vendored Berkeley Function Calling Leaderboard sample
 * (bfcl-live-simple.json, Apache-2.0; source and sampling rule in NOTICE-bfcl.md) as tools of
 * one `bfcl` namespace: a name and a description each, as the benchmark gives them.
 */
export function publicTools(): Tool[] {
  const { namespace, tools } = load();
  return tools.map(({ name, description }) => ({
    namespace,
    name,
    description,
    inputSchema: { type: 'object' },
  }));
}

/**
 * Real users' requests from the same sample, each with the one function the benchmark's answer
 * calls. Public data kept for held-out evaluation only: nothing in toolindex was tuned on it,
 * and it is reported as a rate, never per request.
 */
export function publicRequests(): QueryCase[] {
  const { namespace, requests } = load();
  return requests.map(({ request, tool }) => [request, `${namespace}:${tool}`] as const);
}
