// What the fleet example (examples/fleet) shares with the fleet tests: one launcher, one HAProxy
// configuration. Source only: never published.
export {
  freePorts,
  HAPROXY_MISSING,
  haproxyConfig,
  hasHaproxy,
  hasPostgres,
  POSTGRES_MISSING,
  startHaproxy,
  startPostgres,
} from './fleet.js';
export type { BackendServer, Haproxy, HaproxyConfigOptions, Postgres } from './fleet.js';
