import { createMemoryEvidenceStore } from '@toolplane/toolindex';
import { describeEvidenceStoreContract } from './evidence-store-contract.js';

describeEvidenceStoreContract('createMemoryEvidenceStore', {
  create: () => createMemoryEvidenceStore(),
});
