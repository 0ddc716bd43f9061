import { SEARCH_MODE_TOOLS } from '@toolplane/adapter-kit';
import { describe, expect, it } from 'vitest';
import { searchTools } from './search-mode.js';

describe("the gateway's search mode", () => {
  it("offers adapter-kit's three tools, with the same names, texts and input schemas", () => {
    expect(searchTools.map(({ tool }) => tool.name)).toEqual(SEARCH_MODE_TOOLS.map((t) => t.name));
    for (const [i, shared] of SEARCH_MODE_TOOLS.entries()) {
      const { tool } = searchTools[i]!;
      expect(tool.description).toBe(shared.description);
      expect(tool.inputSchema).toEqual(shared.inputSchema);
    }
  });
});
