// A setup file of every test run (root vitest.config.ts): property tests replay one fixed seed,
// so a red CI run is a regression and not a draw. `pnpm test:fuzz` (TEST_FUZZ=1) leaves the
// seed random to go looking for new counterexamples; each one found is kept as an explicit case
// next to its property.
import fc from 'fast-check';

/** The seed property tests run with outside `pnpm test:fuzz`. */
export const PROPERTY_SEED = 20_261_128;

if (process.env.TEST_FUZZ !== '1') fc.configureGlobal({ seed: PROPERTY_SEED });
