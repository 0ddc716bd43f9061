// The suites third-party stores run in their own vitest tests: importing this entry needs
// vitest, which the `@toolplane/toolkit/testing` helpers do not.
export { describeStoreContract } from './store-contract.js';
export type { StoreContractOptions } from './store-contract.js';
export { describePinStoreContract } from './pin-store-contract.js';
export type { PinStoreContractOptions } from './pin-store-contract.js';
export { describeEvidenceStoreContract } from './evidence-store-contract.js';
export type { EvidenceStoreContractOptions } from './evidence-store-contract.js';
