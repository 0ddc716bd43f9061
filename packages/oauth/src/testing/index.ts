export { startAuthorizationServer } from './authorization-server.js';
export type {
  TestAuthorizationServer,
  TestAuthorizationServerOptions,
  TestClient,
} from './authorization-server.js';
