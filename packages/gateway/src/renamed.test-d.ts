import { describe, expectTypeOf, it } from 'vitest';
import type { GatewayToolFilter, ToolFilter } from './index.js';

describe('renamed public names', () => {
  it('keeps ToolFilter as a deprecated alias of GatewayToolFilter', () => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    expectTypeOf<ToolFilter>().toEqualTypeOf<GatewayToolFilter>();
  });
});
