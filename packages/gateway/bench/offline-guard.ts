// Preload (`node --import`) for a peer that must never reach past this machine: mcp-hub, which
// listens on every interface (it has no host option) and, as it starts, fetches a marketplace
// catalog from the internet, falling back to running `curl` when fetch fails. Under this guard:
// every server listens on 127.0.0.1; a socket may connect to a loopback address only; fetch of
// any other host answers 503 without a request (a refusal, not a thrown error, so that no curl
// fallback runs); curl and wget are never started. Each refusal is written to stderr as one
// `offline-guard: refused …` line, which the benchmark treats as a failure of the run.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '::ffff:127.0.0.1']);

function refuse(what: string): Error {
  process.stderr.write(`offline-guard: refused ${what}\n`);
  return new Error(`offline-guard: ${what} refused (this benchmark stays on 127.0.0.1)`);
}

/** A method of many overloads, as the wrappers below call it: any arguments, in order. */
type Loose<T> = (this: T, ...args: unknown[]) => T;

// eslint-disable-next-line @typescript-eslint/unbound-method -- called with the server as `this`
const listen = net.Server.prototype.listen as Loose<net.Server>;
net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
  const [first] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // listen(port, [host], [backlog], [callback]): the host, when given, is replaced.
    const rest = typeof args[1] === 'string' ? args.slice(2) : args.slice(1);
    return listen.call(this, Number(first), '127.0.0.1', ...rest);
  }
  if (typeof first === 'object' && first !== null && 'port' in first) {
    return listen.call(this, { ...first, host: '127.0.0.1' }, ...args.slice(1));
  }
  return listen.apply(this, args);
} as typeof net.Server.prototype.listen;

// eslint-disable-next-line @typescript-eslint/unbound-method -- called with the socket as `this`
const connect = net.Socket.prototype.connect as Loose<net.Socket>;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const [first, second] = args;
  const host =
    typeof first === 'object' && first !== null
      ? (first as { host?: string; path?: string }).path === undefined
        ? ((first as { host?: string }).host ?? 'localhost')
        : 'localhost'
      : typeof first === 'number' || /^\d+$/.test(String(first))
        ? typeof second === 'string'
          ? second
          : 'localhost'
        : 'localhost'; // a path: a local socket
  if (!LOOPBACK.has(host)) {
    const error = refuse(`a connection to ${host}`);
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return connect.apply(this, args);
};

const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!LOOPBACK.has(url.hostname.replace(/^\[|\]$/g, ''))) {
    refuse(`fetch ${url.origin}`);
    return Promise.resolve(new Response('offline', { status: 503, statusText: 'offline' }));
  }
  return realFetch(input, init);
};

// Named imports of node:child_process see these wrappers after syncBuiltinESMExports.
for (const name of [
  'spawn',
  'execFile',
  'exec',
  'spawnSync',
  'execFileSync',
  'execSync',
] as const) {
  const original = childProcess[name] as (...args: unknown[]) => unknown;
  Object.assign(childProcess, {
    [name]: (...args: unknown[]) => {
      const command = String(args[0]).split('/').pop()?.split(' ')[0] ?? '';
      if (command === 'curl' || command === 'wget') throw refuse(`running ${command}`);
      return original(...args);
    },
  });
}
syncBuiltinESMExports();
