export { runToolkit } from './run-toolkit.js';
export type { RunningToolkit } from './run-toolkit.js';
export { describeStoreContract } from './store-contract.js';
export type { StoreContractOptions } from './store-contract.js';
