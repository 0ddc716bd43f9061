export {
  audioContent,
  embeddedResource,
  imageContent,
  resourceLink,
  textContent,
  toolResult,
} from './content.js';
export type { ToolResult, ToolResultOptions } from './content.js';
export type { JsonValue } from './json-value.js';
export {
  completePromptArgument,
  loadPrompts,
  MAX_FRONT_MATTER_LENGTH,
  MAX_PROMPT_BYTES,
  MAX_PROMPT_STEPS,
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
export { defineResourceTemplate } from './resource-templates.js';
export type {
  ResourceTemplate,
  ResourceTemplateCompleteContext,
  ResourceTemplateDefinition,
  ResourceTemplateReadContext,
} from './resource-templates.js';
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
export { LIVE_READ_TIMEOUT_MS, liveResource } from './live-resources.js';
export type { LiveContents, LiveResource, LiveResourceOptions } from './live-resources.js';
export { compareKeys, createChangeEmitter, createMemoryStore } from './store.js';
export type {
  ChangeEmitter,
  ChangeEmitterOptions,
  Store,
  StoreCallOptions,
  StoreChange,
  StoreListener,
} from './store.js';
export { MAX_TEMPLATE_LENGTH } from './template.js';
export type { TemplateLimits } from './template.js';
export {
  CALLER_META_KEY,
  Connector,
  createConnector,
  requestScopedFetch,
} from './connectors/connector.js';
export { StreamableHttpClientTransport } from './connectors/http-client-transport.js';
export type { StreamableHttpClientTransportOptions } from './connectors/http-client-transport.js';
export type { TransportAuth } from './connectors/http-transport-parts.js';
export { ConnectorOAuth, createConnectorOAuth } from './connectors/oauth/connector-oauth.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the old name, kept one minor
export type { AuthRefusal } from './connectors/oauth/connector-oauth.js';
export type {
  ConnectorAuthRefusal,
  ConnectorOAuthOptions,
  LoginOptions,
  OAuthStatus,
} from './connectors/oauth/connector-oauth.js';
export {
  CredentialSealer,
  sealedCredentialStore,
  TOKEN_KEY_ENV,
  tokenKeyFromEnv,
} from './connectors/oauth/credential-sealing.js';
export type { SealedBlobStore } from './connectors/oauth/credential-sealing.js';
// One definition, shared with the oauth package's resource server.
export { canonicalResource } from '@toolplane/toolmodel';
export type { CanonicalResourceOptions } from '@toolplane/toolmodel';
export {
  credentialKey,
  MemoryCredentialStore,
  parseCredentialKey,
} from './connectors/oauth/credential-store.js';
export type {
  CredentialKeyParts,
  OAuthCredentialRecord,
  OAuthCredentialStore,
  PendingLogin,
} from './connectors/oauth/credential-store.js';
export { assertLoopbackRedirect, listenForRedirect } from './connectors/oauth/loopback-redirect.js';
export type {
  ListenForRedirectOptions,
  LoopbackRedirect,
  RedirectAnswer,
} from './connectors/oauth/loopback-redirect.js';
export { isAuthRequired } from './connectors/oauth/stored-provider.js';
export type { OAuthGrant } from './connectors/oauth/stored-provider.js';
export { mcpHttpFetch } from './connectors/mcp-fetch.js';
export { nodeHttpFetch } from './connectors/node-fetch.js';
export type {
  ConnectorClientLike,
  ConnectorEra,
  ConnectorEvent,
  ConnectorFactory,
  ConnectorLists,
  ConnectorOptions,
  ConnectorServerInfo,
  ConnectorSource,
  ConnectorState,
  HttpSource,
  OAuthCredentialWatch,
  SpokenEra,
  RequestScopedFetchOptions,
  RootsRequestContext,
  StdioSource,
  ToolkitConnector,
  UpstreamRequest,
  UpstreamRequestContext,
  UpstreamRequestHandler,
} from './connectors/connector.js';
export { inferNamespace, sanitizeNamespace } from './connectors/namespace.js';
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
export { getSession, runInSession, silentLogger } from './session.js';
export { MASK, Secrets } from './secrets.js';
export { DEFAULT_MAX_SESSION_CONNECTIONS, DEFAULT_SESSION_IDLE_MS } from './session-connections.js';
export type { SessionConnectionLimits } from './session-connections.js';
export type { Logger, Session, SessionAuth, SessionRequestOptions } from './session.js';
export {
  BUILTIN_NAMESPACE,
  createToolkit,
  DEFAULT_MAX_CALL_DEPTH,
  USER_NAMESPACE,
} from './toolkit.js';
export type {
  AddConnectorOptions,
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
} from './toolkit-types.js';
// The lower-layer names a typical app needs, so it installs this one package.
export { ToolError, toolId, type Tool, type ToolErrorCode } from '@toolplane/toolmodel';
export {
  audit,
  circuitBreaker,
  concurrency,
  rateLimit,
  retry,
  timeout,
  type Middleware,
  type ProgressEvent,
  type RunResult,
} from '@toolplane/toolrun';
