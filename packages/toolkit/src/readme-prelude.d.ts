// What the README's examples use and leave to the reader: declared here, appended to each
// example when readme-check type-checks them (packages/readme-check/src/readme-types.test.ts).
// A module, so the package's own sources never see these names.
/* eslint-disable @typescript-eslint/no-unused-vars -- used by the examples it is appended to */

declare function ask(request: unknown): Promise<string>;
declare const answerFromThisUser: import('@toolplane/toolkit').UpstreamRequestHandler['handle'];
declare function plot(
  path: string,
  column: unknown,
  options: { signal?: AbortSignal },
): Promise<{ png: Uint8Array; rows: number; csv: string }>;

export {};
