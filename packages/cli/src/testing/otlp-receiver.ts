import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local OTLP/HTTP receiver: every JSON body POSTed to /v1/traces, decoded. */
export interface Receiver {
  readonly server: Server;
  readonly url: string;
  readonly bodies: unknown[];
  /** Resolves once a span of that name has arrived (bounded by the test's timeout). */
  spanNamed(name: string): Promise<void>;
}

export function startReceiver(): Promise<Receiver> {
  const bodies: unknown[] = [];
  const waiting: (() => void)[] = [];
  const names = (): string[] =>
    JSON.stringify(bodies)
      .match(/"name":"[^"]*"/g)
      ?.map((m) => m.slice(8, -1)) ?? [];
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.includes('json') === true) {
        bodies.push(JSON.parse(text));
        for (const wake of waiting.splice(0)) wake();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        server,
        url: `http://127.0.0.1:${String(port)}/v1/traces`,
        bodies,
        spanNamed: async (name) => {
          while (!names().includes(name)) await new Promise<void>((wake) => waiting.push(wake));
        },
      });
    });
  });
}
