// The main entry, grouped by who uses it. Client OAuth and credential stores are on
// `@toolplane/toolkit/oauth`, test helpers on `@toolplane/toolkit/testing`; the hand-written
// transports (src/connectors/transport/) are not public.

// -- Apps: a toolkit, and what it holds -----------------------------------------------------------

export {
  BUILTIN_NAMESPACE,
  createToolkit,
  DEFAULT_MAX_CALL_DEPTH,
  USER_NAMESPACE,
} from './toolkit/toolkit.js';
export type {
  AddConnectorOptions,
  RemoveConnectorOptions,
  BuiltinKind,
  CallOptions,
  ConnectionMode,
  CallResult,
  CompleteOptions,
  CompletionTarget,
  ConnectorStatus,
  ListError,
  ListRequest,
  ListResult,
  ReadOptions,
  Toolkit,
  ToolkitDelegate,
  ToolkitEvent,
  ToolkitItem,
  ToolkitOptions,
  ToolkitPrompt,
  ToolkitResourceTemplate,
  ToolkitSearchOptions,
} from './toolkit/types.js';

// Tools defined in code, and the results they return.
export { defineTool } from './define-tool.js';
export type {
  DefinedTool,
  InferArguments,
  InferInput,
  InferStructured,
  SchemaInput,
  StandardJsonSchema,
  StandardResult,
  ToolContext,
  ToolDefinition,
} from './define-tool.js';
export { createOutputTool, OUTPUT_TOOL_INSTRUCTION } from './output-tool.js';
export {
  audioContent,
  embeddedResource,
  imageContent,
  resourceLink,
  textContent,
  toolResult,
} from './content.js';
export type { ToolResult, ToolResultOptions } from './content.js';
export type { JsonValue } from '@toolplane/toolmodel';

// Prompts: files with front matter, rendered with Liquid.
export {
  MAX_FRONT_MATTER_LENGTH,
  MAX_PROMPT_BYTES,
  MAX_PROMPT_STEPS,
  parsePrompt,
  validatePrompt,
} from './prompts/prompts.js';
export { loadPromptFile, loadPrompts } from './prompts/prompt-files.js';
export { completePromptArgument, renderPrompt, toMcpPrompt } from './prompts/render.js';
export type {
  LoadPromptsOptions,
  ParsePromptOptions,
  Prompt,
  RenderedPrompt,
  RenderPromptOptions,
} from './prompts/prompts.js';
export { MAX_TEMPLATE_LENGTH } from './prompts/template.js';
export type { TemplateLimits } from './prompts/template.js';

// Resources, resource templates and live resources.
export {
  dataResource,
  jsonResource,
  MAX_RESOURCE_BYTES,
  MAX_URI_LENGTH,
  resource,
  resourceInfo,
  textResource,
  toMcpResource,
  toResourceContents,
  validateResource,
  withDescription,
  withUri,
} from './resources/resources.js';
export { readResource } from './resources/read-resource.js';
export type {
  DataResourceOptions,
  ReadResourceOptions,
  Resource,
  ResourceInfo,
  ResourceOptions,
} from './resources/resources.js';
export { defineResourceTemplate } from './resources/resource-templates.js';
export type {
  ResourceTemplate,
  ResourceTemplateCompleteContext,
  ResourceTemplateDefinition,
  ResourceTemplateReadContext,
} from './resources/resource-templates.js';
export { LIVE_READ_TIMEOUT_MS, liveResource } from './resources/live-resources.js';
export type {
  LiveContents,
  LiveResource,
  LiveResourceOptions,
} from './resources/live-resources.js';

// The session a call runs in, logging, and secrets kept out of what is handed out.
export {
  APPROVE_FIELD,
  approvalForm,
  elicitApproval,
  toolkitApproval,
} from './approval/elicit-approval.js';
export type { ToolkitApprovalOptions } from './approval/elicit-approval.js';
export { lostApprovalGuards, unmatchedApprovalPatterns } from './approval/approval-patterns.js';
export type {
  LostApprovalGuard,
  UnmatchedApprovalOptions,
  UnmatchedApprovalPattern,
} from './approval/approval-patterns.js';
export { getSession, runInSession, silentLogger } from './session.js';
export type { Logger, Session, SessionAuth, SessionRequestOptions } from './session.js';
export { MASK, Secrets } from './secrets.js';

// Connectors to upstream MCP servers, used alone or plugged into a toolkit.
export { Connector, createConnector, requestScopedFetch } from './connectors/connector.js';
export type {
  ConnectorClientLike,
  ConnectorEra,
  ConnectorEvent,
  ConnectorFactory,
  ConnectorListKind,
  ConnectorLists,
  ConnectorOptions,
  ConnectorServerInfo,
  ConnectorSource,
  ConnectorState,
  HttpSource,
  SpokenEra,
  RequestScopedFetchOptions,
  RootsRequestContext,
  StdioSource,
  ToolkitConnector,
} from './connectors/connector.js';
export { inferNamespace, sanitizeNamespace } from './connectors/namespace.js';
// Also `@toolplane/toolkit/spawn`, which loads none of the rest (see connectors/spawn/).
export { StdioPrestarts } from './connectors/spawn/index.js';
export {
  DEFAULT_MAX_SESSION_CONNECTIONS,
  DEFAULT_SESSION_IDLE_MS,
} from './connectors/session-connections.js';
export type { SessionConnectionLimits } from './connectors/session-connections.js';

// The lower-layer names a typical app needs, so it installs this one package.
export { ToolError, toolId, type Tool, type ToolErrorCode } from '@toolplane/toolmodel';
export {
  audit,
  CallHandedOn,
  circuitBreaker,
  concurrency,
  HANDED_ON_OUTCOME,
  handedOn,
  rateLimit,
  retry,
  timeout,
  type ApprovalAnswer,
  type ApprovalDecision,
  type ApprovalRequest,
  type Middleware,
  type ProgressEvent,
  type RunResult,
} from '@toolplane/toolrun';

// -- Stores: what keeps the `user` namespace (store-sqlite, store-postgres, your own) -----------

export { compareKeys, createChangeEmitter, createMemoryStore } from './store.js';
export type {
  ChangeEmitter,
  ChangeEmitterOptions,
  Store,
  StoreCallOptions,
  StoreChange,
  StoreListener,
} from './store.js';

// -- Hosts: servers that serve a toolkit to MCP clients (the gateway) -----------------------------

export { toolkitHost } from './toolkit/toolkit.js';
export { auditApprovals, auditWho } from './pinning/approval-audit.js';
export { withAuditFeed } from './pinning/audit-feed.js';
export { fingerprintTool } from './pinning/fingerprint.js';
export type { PinnableTool, ToolFingerprint } from './pinning/fingerprint.js';
export { createMemoryPinStore } from './pinning/memory-pin-store.js';
export {
  AUDIT_KINDS,
  auditLimit,
  checkAcceptedFingerprint,
  checkAcceptTarget,
  checkAuditRecord,
  MAX_AUDIT_LIMIT,
  parseAcceptTarget,
} from './pinning/audit.js';
export { acceptedRecord, auditFromRow, changeFromRow, pinFromRow } from './pinning/pin-rows.js';
export type { AuditRow, PinChangeRow, PinRow } from './pinning/pin-rows.js';
export { changedFields, describePinChange } from './pinning/pin-diff.js';
// Toolmodel's, re-exported: the CLI and the dashboard show an upstream's text with it.
export { showControls } from '@toolplane/toolmodel/text';
export type { DescribePinChangeOptions } from './pinning/pin-diff.js';
export { acceptCommand, PIN_META_KEY } from './pinning/pin-gate.js';
export type { AcceptCommandOptions, PinningMode, PinningOptions } from './pinning/pin-gate.js';
export type {
  AcceptTarget,
  AuditKind,
  AuditRecord,
  ListAuditOptions,
  Pin,
  PinChange,
  PinEvent,
  PinStore,
  StoredAuditRecord,
} from './pinning/pin-types.js';
export type { ToolkitHost } from './toolkit/host.js';
// Upstream servers' sampling, elicitation and roots requests: answered by a host for its clients,
// or by an app itself (`ToolkitOptions.upstreamRequests`).
export { CALLER_META_KEY } from './connectors/connector.js';
export type {
  UpstreamRequest,
  UpstreamRequestContext,
  UpstreamRequestHandler,
} from './connectors/connector.js';
