export { ChainError } from './errors.js';
export { createLocalRegistry } from './local-registry.js';
export type {
  LocalHandler,
  LocalHandlerContext,
  LocalHandlers,
  LocalRegistry,
} from './local-registry.js';
export { createMcpExecutor } from './mcp-executor.js';
export type {
  McpCallClient,
  McpCallOptions,
  McpClientSource,
  McpExecutor,
  McpExecutorOptions,
  McpTimeouts,
} from './mcp-executor.js';
export { approval, DEFAULT_APPROVAL_TIMEOUT_MS } from './approval/approval.js';
export type {
  ApprovalAnswer,
  ApprovalDecision,
  ApprovalOptions,
  ApprovalReason,
  ApprovalRequest,
  ApprovalSession,
} from './approval/approval.js';
export { boundedText, escapeUnsafe, MAX_SHOWN_ARGS, showArgs } from './approval/display.js';
export { compileRules } from './approval/policy.js';
export { CallHandedOn, HANDED_ON_OUTCOME, handedOn } from './handed-on.js';
export type { ApprovalPolicy, ApprovalRules } from './approval/policy.js';
export { audit, REDACTED } from './middleware/audit.js';
export type { AuditOptions, AuditRecord, AuditSink } from './middleware/audit.js';
export { circuitBreaker } from './middleware/circuit-breaker.js';
export type { CircuitBreakerOptions } from './middleware/circuit-breaker.js';
export { concurrency } from './middleware/concurrency.js';
export type { ConcurrencyOptions } from './middleware/concurrency.js';
export { rateLimit } from './middleware/rate-limit.js';
export type { RateLimitKey, RateLimitOptions } from './middleware/rate-limit.js';
export { backoffDelay, retry } from './middleware/retry.js';
export type { BackoffOptions, RetryOptions } from './middleware/retry.js';
export { timeout } from './middleware/timeout.js';
export { isMcpToolResult, MCP_TOOL_RESULT, mcpToolResult } from './mcp-result.js';
export type { McpToolResult } from './mcp-result.js';
export { normalizeMcpResult } from './normalize.js';
export { createRunner } from './runner/runner.js';
export type {
  ChainProgressEvent,
  ChainResult,
  ChainStep,
  MaybePromise,
  RunChainOptions,
  Runner,
  RunnerOptions,
} from './runner/types.js';
export type {
  Invoke,
  Middleware,
  ProgressEvent,
  ProgressListener,
  ProviderCallOptions,
  ProviderExecutor,
  RunMeta,
  RunOptions,
  RunResult,
  RunStreamOptions,
  StreamEvent,
  ToolCall,
} from './types.js';
export {
  DEFAULT_REDACTED_KEYS,
  withAudit,
  withRateLimit,
  withTimeout,
} from './executor-wrappers.js';
export type {
  ExecutorAuditOptions,
  ExecutorAuditRecord,
  ExecutorAuditSink,
  ExecutorRateLimitKey,
  ExecutorRateLimitOptions,
} from './executor-wrappers.js';
export {
  createInMemoryToolExecutor,
  createToolExecutor,
  InMemoryToolExecutor,
} from './tool-executor.js';
export type {
  CostFunction,
  InMemoryTool,
  InMemoryTools,
  InMemoryToolOptions,
  ToolExecutor,
  ToolInvocation,
  ToolInvocationContext,
  ToolExecutorOptions,
  ToolInvocationResult,
} from './tool-executor.js';
