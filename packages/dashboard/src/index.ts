export { dashboardRoutes, staticTokenVerifier } from './server/routes.js';
export { DASHBOARD_SESSION } from './server/api.js';
export type {
  DashboardOptions,
  DashboardRoutes,
  LoginContext,
  LoginProof,
} from './server/routes.js';
export type { DashboardCall, ToolVisibility } from './server/api.js';
export { createCallFeed } from './server/call-feed.js';
export type {
  CallEntry,
  CallFeed,
  CallFeedEvent,
  CallFeedOptions,
  CallOutcome,
  CallStats,
  MinuteStats,
} from './server/call-feed.js';
export { CSP } from './server/http.js';
