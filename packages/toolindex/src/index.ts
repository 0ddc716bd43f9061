export { defaultBackendSelector } from './backend-selector.js';
export type { BackendSelector } from './backend-selector.js';
export { DEFAULT_FIELD_WEIGHTS } from './bm25-options.js';
export type { Bm25Options, FieldWeights } from './bm25-options.js';
export { createBm25Searcher } from './bm25-searcher.js';
export type { Bm25Searcher } from './bm25-searcher.js';
export { createHybridSearcher } from './hybrid-searcher.js';
export type { EmbedFunction, HybridSearcher, HybridSearcherOptions } from './hybrid-searcher.js';
export { isLearningSearcher } from './learning-options.js';
export type { LearningSearcher, LearningSearcherOptions } from './learning-options.js';
export { createLearningSearcher } from './learning-searcher.js';
export { createOpenAiEmbedder } from './openai-embeddings.js';
export type { OpenAiEmbedderOptions } from './openai-embeddings.js';
export { compareHits, matchesFilter, MAX_QUERY_LENGTH } from './searcher.js';
export type { SearchDocument, Searcher, SearcherQuery, SearchHit } from './searcher.js';
export { SHORT_DESCRIPTION_LENGTH, shortDescription } from './summary.js';
export { DEFAULT_ALIASES, DEFAULT_SYNONYMS } from './synonyms.js';
export { createIndex } from './tool-index.js';
export type {
  IndexChangeEvent,
  IndexChangeListener,
  IndexChangeType,
  IndexOptions,
  ListToolsOptions,
  NamespaceInfo,
  NamespacePage,
  PageOptions,
  RegisterMcpToolsOptions,
  RegisterOptions,
  SearchOptions,
  SearchPage,
  ToolEntry,
  ToolIndex,
  ToolPage,
  ToolRegistration,
  ToolSummary,
} from './index-types.js';
export { stem, tokenize } from './tokenize.js';
export {
  addEvidence,
  checkEvidenceKeys,
  checkEvidenceRows,
  createForgetListeners,
  createMemoryEvidenceStore,
  keepHeaviest,
} from './usage-evidence.js';
export type {
  EvidenceForget,
  EvidenceStore,
  ForgetListeners,
  UsageEvidence,
} from './usage-evidence.js';
export { createMemoryVectorCache } from './vector-cache.js';
export type { VectorCache } from './vector-cache.js';
