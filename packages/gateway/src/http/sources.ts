// Connection fairness: how many connections (or, behind a trusted proxy, requests in flight) one
// source may hold, so that one caller cannot take every slot `maxConnections` allows; and which
// source a request is, for every per-source bound (failed authentications count by it too).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BlockList, isIP, type Socket } from 'node:net';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { ToolError } from '@toolplane/toolkit';
import { HttpError } from './request.js';

/** What {@link SourceLimits} is told: see the options of the same names on `serveHttp`. */
export interface SourceOptions {
  readonly maxConnectionsPerSource: number;
  readonly trustedProxies?: readonly string[];
}

/**
 * Counts what each source holds and refuses past the bound. A direct caller's source is its
 * address (an IPv6 one's /64, which one host is commonly given whole), counted per connection
 * (connections.ts claims and releases them) and refused on arrival. A trusted proxy's
 * connections carry many clients, so they are not counted; each request on one is counted
 * instead against the client `X-Forwarded-For` names, while it is in flight, and refused with
 * 429 past the bound.
 */
export class SourceLimits {
  readonly #max: number;
  readonly #proxies: BlockList | undefined;
  readonly #held = new Map<string, number>();

  /** @throws {ToolError} `invalid_config` for a trusted proxy that is no address or subnet. */
  constructor(options: SourceOptions) {
    this.#max = options.maxConnectionsPerSource;
    const proxies = options.trustedProxies ?? [];
    this.#proxies = proxies.length === 0 ? undefined : trustList(proxies);
  }

  /**
   * The source a new connection counts against: its address (an IPv6 one's /64); `undefined`
   * for a trusted proxy's connection, which is not counted, or one already gone.
   */
  connectionSource(socket: Socket): string | undefined {
    const address = plainAddress(socket.remoteAddress);
    if (address === undefined || this.#isProxy(address)) return undefined;
    return sourceKey(address);
  }

  /** Whether `source` holds its bound already, so that another claim of it would be refused. */
  full(source: string): boolean {
    return (this.#held.get(source) ?? 0) >= this.#max;
  }

  /**
   * A slot for `source`, with its release (which may be called more than once); `undefined`
   * when it holds the bound already.
   */
  claim(source: string): (() => void) | undefined {
    const held = this.#held.get(source) ?? 0;
    if (held >= this.#max) return undefined;
    this.#held.set(source, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.#held.get(source) ?? 1) - 1;
      if (now === 0) this.#held.delete(source);
      else this.#held.set(source, now);
    };
  }

  /**
   * On a trusted proxy's connection, counts the request against the client it forwards until
   * its answer is done; on any other, nothing (its connection is counted).
   *
   * @throws {HttpError} 429 when that client holds its bound already.
   */
  claimForwarded(req: IncomingMessage, res: ServerResponse): void {
    const peer = plainAddress(req.socket.remoteAddress);
    if (peer === undefined || !this.#isProxy(peer)) return;
    const release = this.claim(sourceKey(this.#forwardedClient(req, peer)));
    if (release === undefined) {
      throw new HttpError(
        429,
        ProtocolErrorCode.InternalError,
        `this client has ${String(this.#max)} requests in flight, the most one source may; retry shortly`,
      );
    }
    res.once('close', release);
  }

  /**
   * The source `req` counts against: its connection's address (an IPv6 one's /64) or, on a
   * trusted proxy's connection, the client that proxy forwards; `''` for a connection already
   * gone.
   */
  sourceOf(req: IncomingMessage): string {
    const peer = plainAddress(req.socket.remoteAddress);
    if (peer === undefined) return '';
    return sourceKey(this.#isProxy(peer) ? this.#forwardedClient(req, peer) : peer);
  }

  /**
   * The client a proxy forwards: the nearest address in `X-Forwarded-For` that is no trusted
   * proxy (entries further left were written by whoever sent them, so cannot be believed); the
   * proxy itself when the header names no one else.
   */
  #forwardedClient(req: IncomingMessage, peer: string): string {
    const header = req.headers['x-forwarded-for'];
    const entries = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((entry) => plainAddress(entry.trim()));
    for (let i = entries.length - 1; i >= 0; i--) {
      const address = entries[i];
      // Not an address: whatever is left of it is as unbelievable as this.
      if (address === undefined) break;
      if (!this.#isProxy(address)) return address;
    }
    return peer;
  }

  #isProxy(address: string): boolean {
    return this.#proxies?.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4') === true;
  }
}

/** The trusted proxies as a block list of addresses and subnets (`10.0.0.0/8`, `fd00::/8`). */
function trustList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? undefined : Number(prefix);
    const maxBits = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      rest.length > 0 ||
      (bits !== undefined && (!Number.isInteger(bits) || bits < 0 || bits > maxBits))
    ) {
      throw new ToolError(
        'invalid_config',
        `trustedProxies: ${JSON.stringify(entry)} is not an IP address or subnet (such as 10.0.0.0/8)`,
      );
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return list;
}

/** An IP address as written, IPv4 for an IPv4-mapped IPv6 one; `undefined` for none. */
export function plainAddress(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(value)?.[1];
  const address = mapped ?? value;
  return isIP(address) === 0 ? undefined : address;
}

/** The source an address counts against: itself for IPv4, its /64 for IPv6. */
export function sourceKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = '', tail] = address.toLowerCase().split('%', 1)[0]?.split('::') ?? [];
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? front
      : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
