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

interface VendoredMultiSample {
  readonly namespace: string;
  readonly tools: VendoredSample['tools'];
  readonly requests: readonly { readonly request: string; readonly tools: readonly string[] }[];
}

let sample: VendoredSample | undefined;
let multiSample: VendoredMultiSample | undefined;

function load(): VendoredSample {
  sample ??= JSON.parse(
    readFileSync(new URL('bfcl-live-simple.json', import.meta.url), 'utf8'),
  ) as VendoredSample;
  return sample;
}

function loadMulti(): VendoredMultiSample {
  multiSample ??= JSON.parse(
    readFileSync(new URL('bfcl-live-parallel-multiple.json', import.meta.url), 'utf8'),
  ) as VendoredMultiSample;
  return multiSample;
}

/** A request that needs every one of its tools among the first results. */
export type MultiToolCase = readonly [query: string, ...tools: string[]];

/** A sample's functions as tools of its namespace: a name and a description each. */
function asTools(namespace: string, functions: VendoredSample['tools']): Tool[] {
  return functions.map(({ name, description }) => ({
    namespace,
    name,
    description,
    inputSchema: { type: 'object' },
  }));
}

/**
 * The functions offered with the vendored multi-function BFCL requests
 * (bfcl-live-parallel-multiple.json; NOTICE-bfcl.md), as tools of one `bfclm` namespace.
 */
export function publicMultiTools(): Tool[] {
  const { namespace, tools } = loadMulti();
  return asTools(namespace, tools);
}

/**
 * Real users' requests that need two or three different functions, each with the functions
 * its answer calls. Held-out evaluation only, like {@link publicRequests}.
 */
export function publicMultiToolRequests(): MultiToolCase[] {
  const { namespace, requests } = loadMulti();
  return requests.map(({ request, tools }) => [
    request,
    ...tools.map((tool) => `${namespace}:${tool}`),
  ]);
}

/**
 * The functions of the vendored Berkeley Function Calling Leaderboard sample
 * (bfcl-live-simple.json, Apache-2.0; source and sampling rule in NOTICE-bfcl.md) as tools of
 * one `bfcl` namespace: a name and a description each, as the benchmark gives them.
 */
export function publicTools(): Tool[] {
  const { namespace, tools } = load();
  return asTools(namespace, tools);
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
