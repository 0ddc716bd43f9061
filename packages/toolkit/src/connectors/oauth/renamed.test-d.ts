import { describe, expectTypeOf, it } from 'vitest';
import type { AuthRefusal, ConnectorAuthRefusal } from './index.js';

describe('renamed public names', () => {
  it('keeps AuthRefusal as a deprecated alias of ConnectorAuthRefusal', () => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    expectTypeOf<AuthRefusal>().toEqualTypeOf<ConnectorAuthRefusal>();
  });
});
