import { describe, expectTypeOf, it } from 'vitest';
import type { AdapterToolResult, ToolResult } from './index.js';

describe('renamed public names', () => {
  it('keeps ToolResult as a deprecated alias of AdapterToolResult', () => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    expectTypeOf<ToolResult>().toEqualTypeOf<AdapterToolResult>();
  });
});
