export type { JsonValue } from './json-value.js';
export {
  loadPrompts,
  MAX_FRONT_MATTER_LENGTH,
  MAX_PROMPT_BYTES,
  parsePrompt,
  renderPrompt,
  toMcpPrompt,
  validatePrompt,
} from './prompts.js';
export type {
  LoadPromptsOptions,
  ParsePromptOptions,
  Prompt,
  RenderedPrompt,
  RenderPromptOptions,
} from './prompts.js';
export {
  dataResource,
  jsonResource,
  MAX_RESOURCE_BYTES,
  MAX_URI_LENGTH,
  readResource,
  resource,
  resourceInfo,
  textResource,
  toMcpResource,
  toResourceContents,
  validateResource,
  withDescription,
  withUri,
} from './resources.js';
export type {
  DataResourceOptions,
  ReadResourceOptions,
  Resource,
  ResourceInfo,
  ResourceOptions,
} from './resources.js';
export { compareKeys, createChangeEmitter, createMemoryStore } from './store.js';
export type {
  ChangeEmitter,
  Store,
  StoreCallOptions,
  StoreChange,
  StoreListener,
} from './store.js';
export { MAX_TEMPLATE_LENGTH } from './template.js';
export type { TemplateLimits } from './template.js';
