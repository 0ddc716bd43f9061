import { connect as netConnect, type Socket } from 'node:net';
import { createToolkit, type Toolkit } from '@toolplane/toolkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayMetrics } from '../observe/metrics.js';
import type { ConnectionBoundRecord } from '../observe/observer.js';
import { serveHttp, type HttpGateway, type ServeHttpOptions } from './serve.js';
import { closed, heldRequest, initializeFrom, trickle } from '../testing/raw-client.js';

// At a connection bound, a kept-alive connection with nothing in flight gives its slot to a new
// one, the longest idle first; a busy connection never does. Each loopback address (127.0.0.2,
// …) plays a source of its own.

let toolkit: Toolkit;
const gateways: HttpGateway[] = [];
const sockets: Socket[] = [];

async function serve(options: Partial<ServeHttpOptions>): Promise<HttpGateway> {
  const gateway = await serveHttp(toolkit, { port: 0, headersTimeoutMs: 10_000, ...options });
  gateways.push(gateway);
  return gateway;
}

beforeAll(() => {
  toolkit = createToolkit({ tools: [] });
});

/** `socket`, destroyed after the test. */
function own(socket: Socket): Socket {
  sockets.push(socket);
  return socket;
}

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});

afterAll(async () => {
  await toolkit.close();
});

/** A raw HTTP/1.1 connection that asks `GET /healthz` and keeps the connection alive between. */
class KeptAlive {
  readonly socket: Socket;
  #buffer = '';
  #waiting: { resolve: (status: number) => void; reject: (error: Error) => void } | undefined;
  #continued: (() => void) | undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      this.#continue();
      this.#answered();
    });
    socket.on('close', () => {
      this.#waiting?.reject(new Error('the connection closed before its answer'));
      this.#waiting = undefined;
    });
  }

  /** A connection from `localAddress` that has had one answer, so it is idle now. */
  static async open(url: URL, localAddress: string): Promise<KeptAlive> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const opened = netConnect(
        { port: Number(url.port), host: url.hostname, localAddress },
        () => {
          resolve(opened);
        },
      );
      opened.once('error', reject);
    });
    own(socket);
    const connection = new KeptAlive(socket);
    expect(await connection.ask()).toBe(200);
    return connection;
  }

  /** Sends `GET /healthz` and resolves with the answer's status once the whole answer came. */
  ask(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${this.#host()}\r\n\r\n`);
    });
  }

  /**
   * Sends the head of a POST whose two-byte body is not sent yet (its request is in flight) and
   * resolves once the server has taken it: it asks for `100 Continue`, which Node writes as it
   * hands the request to the gateway.
   */
  hold(): Promise<void> {
    return new Promise((resolve) => {
      this.#continued = resolve;
      this.socket.write(
        `POST /mcp HTTP/1.1\r\nHost: ${this.#host()}\r\ncontent-type: application/json\r\n` +
          'accept: application/json, text/event-stream\r\nexpect: 100-continue\r\n' +
          'content-length: 2\r\n\r\n',
      );
    });
  }

  /** Sends the body of the request {@link hold} began and resolves with the answer's status. */
  finish(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.socket.write('{}');
    });
  }

  #continue(): void {
    const line = 'HTTP/1.1 100 Continue\r\n\r\n';
    if (this.#continued === undefined || !this.#buffer.startsWith(line)) return;
    this.#buffer = this.#buffer.slice(line.length);
    this.#continued();
    this.#continued = undefined;
  }

  #host(): string {
    return `127.0.0.1:${String(this.socket.remotePort)}`;
  }

  #answered(): void {
    const end = this.#buffer.indexOf('\r\n\r\n');
    if (end < 0 || this.#waiting === undefined) return;
    const head = this.#buffer.slice(0, end);
    // The answer is a small JSON body, sent chunked or with its length.
    const length = /content-length: *(\d+)/i.exec(head)?.[1];
    const last = this.#buffer.indexOf('\r\n0\r\n\r\n', end);
    const after = length === undefined ? (last < 0 ? -1 : last + 7) : end + 4 + Number(length);
    if (after < 0 || this.#buffer.length < after) return;
    this.#buffer = this.#buffer.slice(after);
    const { resolve } = this.#waiting;
    this.#waiting = undefined;
    resolve(Number(head.split(' ')[1]));
  }
}

describe('serveHttp connection slots', () => {
  it('gives a new connection at maxConnections the slot of the longest idle one', async () => {
    const gateway = await serve({ maxConnections: 3, maxConnectionsPerSource: 3 });
    const first = await KeptAlive.open(gateway.url, '127.0.0.2');
    const second = await KeptAlive.open(gateway.url, '127.0.0.2');
    const third = await KeptAlive.open(gateway.url, '127.0.0.2');
    // Used again, the first is now the most recently idle: the second has been idle longest.
    expect(await first.ask()).toBe(200);
    expect(await initializeFrom(gateway.url, '127.0.0.3')).toBe(200);
    await closed(second.socket);
    expect(await first.ask()).toBe(200);
    expect(await third.ask()).toBe(200);
  });

  it('never takes the slot of a connection with a request in flight or none sent yet', async () => {
    const gateway = await serve({ maxConnections: 3, maxConnectionsPerSource: 3 });
    const held = await heldRequest(gateway.url, '127.0.0.2');
    own(held.socket);
    const starting = own(await trickle(gateway.url, '127.0.0.2'));
    const idle = await KeptAlive.open(gateway.url, '127.0.0.2');
    expect(await initializeFrom(gateway.url, '127.0.0.3')).toBe(200);
    await closed(idle.socket);
    // Every slot is busy now (the initialize's connection closes after its answer, so fill it).
    own(await trickle(gateway.url, '127.0.0.3'));
    const refused = own(await trickle(gateway.url, '127.0.0.4'));
    await closed(refused);
    // The busy two were kept: each gets its answer once its request is whole.
    const answer = new Promise<string>((resolve) => {
      starting.once('data', (chunk: Buffer) => {
        resolve(chunk.toString('latin1'));
      });
    });
    starting.write('1\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
    expect(await answer).toMatch(/^HTTP\/1\.1 \d{3} /);
    expect(await held.finish()).toBeGreaterThanOrEqual(200);
  });

  it('gives a source at its own bound the slot of its own longest idle connection', async () => {
    const gateway = await serve({ maxConnections: 10, maxConnectionsPerSource: 2 });
    // Another source's connection, idle longer than any: not the one to give way.
    const other = await KeptAlive.open(gateway.url, '127.0.0.3');
    const first = await KeptAlive.open(gateway.url, '127.0.0.2');
    const second = await KeptAlive.open(gateway.url, '127.0.0.2');
    expect(await initializeFrom(gateway.url, '127.0.0.2')).toBe(200);
    await closed(first.socket);
    expect(await second.ask()).toBe(200);
    expect(await other.ask()).toBe(200);
  });

  it('no longer gives way once an idle connection asks again', async () => {
    const gateway = await serve({ maxConnections: 10, maxConnectionsPerSource: 2 });
    const first = await KeptAlive.open(gateway.url, '127.0.0.2');
    const second = await KeptAlive.open(gateway.url, '127.0.0.2');
    // Idle longer than the second, the first asks again: busy now, the second gives way.
    await first.hold();
    own(await trickle(gateway.url, '127.0.0.2'));
    const gone = await Promise.race([
      closed(first.socket).then(() => 'first'),
      closed(second.socket).then(() => 'second'),
    ]);
    expect(gone).toBe('second');
    // The source's two are busy: the next is refused, and the first still gets its answer.
    await closed(own(await trickle(gateway.url, '127.0.0.2')));
    expect(await first.finish()).toBeGreaterThanOrEqual(200);
  });

  it('refuses a source at its bound on arrival when none of its connections is idle', async () => {
    const gateway = await serve({ maxConnections: 10, maxConnectionsPerSource: 2 });
    const other = await KeptAlive.open(gateway.url, '127.0.0.3');
    own((await heldRequest(gateway.url, '127.0.0.2')).socket);
    own(await trickle(gateway.url, '127.0.0.2'));
    await closed(own(await trickle(gateway.url, '127.0.0.2')));
    expect(await other.ask()).toBe(200);
  });

  it('tells its observer and its metrics what met a bound, and how many connections are open', async () => {
    const heard: ConnectionBoundRecord[] = [];
    const metrics = createGatewayMetrics();
    const gateway = await serve({
      maxConnections: 2,
      maxConnectionsPerSource: 2,
      metrics,
      observe: { connectionBound: (record) => heard.push(record) },
    });
    own(await trickle(gateway.url, '127.0.0.2'));
    // Answered, a later connection shows that the server has taken the one before it.
    const idle = await KeptAlive.open(gateway.url, '127.0.0.2');
    const open = await metrics.scrape();
    expect(open).toMatch(/^toolplane_http_connections\{state="idle"\} 1$/m);
    expect(open).toMatch(/^toolplane_http_connections\{state="active"\} 1$/m);
    // At its source's bound: the idle one gives way; then none can, for the source or for all.
    own(await trickle(gateway.url, '127.0.0.2'));
    await closed(idle.socket);
    await closed(own(await trickle(gateway.url, '127.0.0.2')));
    await closed(own(await trickle(gateway.url, '127.0.0.3')));
    expect(heard).toEqual([
      { bound: 'source', outcome: 'gave_way', source: '127.0.0.2' },
      { bound: 'source', outcome: 'refused', source: '127.0.0.2' },
      { bound: 'connections', outcome: 'refused', source: '127.0.0.3' },
    ]);
    const text = await metrics.scrape();
    const counted = (bound: string, outcome: string): RegExp =>
      new RegExp(
        `^toolplane_http_connection_bounds_total\\{bound="${bound}",outcome="${outcome}"\\} 1$`,
        'm',
      );
    expect(text).toMatch(counted('source', 'gave_way'));
    expect(text).toMatch(counted('source', 'refused'));
    expect(text).toMatch(counted('connections', 'refused'));
    expect(text).toMatch(/^toolplane_http_connections\{state="active"\} 2$/m);
  });
});
