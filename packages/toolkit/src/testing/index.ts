export { describeStoreContract } from './store-contract.js';
export type { StoreContractOptions } from './store-contract.js';
