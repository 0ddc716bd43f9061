import { connect, type Socket } from 'node:net';
import { serveHttp, type ConnectionBoundRecord } from '@toolplane/gateway';
import { createToolkit } from '@toolplane/toolkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBoundLog, type BoundLineWriter } from './bound-log.js';
import { jsonServeLog } from '../testing/json-log.js';

// A flood of connections refused at a bound must not write a line per connection: the first is
// written at once, the rest are counted into one line a window.

interface Line {
  readonly level: 'info' | 'warn';
  readonly message: string;
  readonly fields: Parameters<BoundLineWriter>[2];
}

function recorder(): { lines: Line[]; write: BoundLineWriter } {
  const lines: Line[] = [];
  return { lines, write: (level, message, fields) => lines.push({ level, message, fields }) };
}

const refused = (source: string): ConnectionBoundRecord => ({
  bound: 'source',
  outcome: 'refused',
  source,
});
const gaveWay: ConnectionBoundRecord = { bound: 'connections', outcome: 'gave_way', source: '::1' };

afterEach(() => {
  vi.useRealTimers();
});

describe("serve's log of connection bounds", () => {
  it('writes the first at once, then one line a window counting the rest', () => {
    vi.useFakeTimers();
    const { lines, write } = recorder();
    const { hear } = createBoundLog(write, 10_000);
    hear(refused('10.0.0.5'));
    expect(lines).toEqual([
      {
        level: 'warn',
        message:
          'a connection from 10.0.0.5 was refused: 10.0.0.5 holds as many as it may, none idle ' +
          '(http.maxConnectionsPerSource)',
        fields: {
          kind: 'connection.bound',
          bound: 'source',
          outcome: 'refused',
          source: '10.0.0.5',
        },
      },
    ]);
    for (let i = 0; i < 500; i++) hear(refused(i % 5 === 0 ? '10.0.0.9' : '10.0.0.5'));
    hear(gaveWay);
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(10_000);
    expect(lines[1]).toEqual({
      level: 'warn',
      message:
        'connection bounds in the last 10 s: 500 refused (http.maxConnectionsPerSource), ' +
        '1 gave way (http.maxConnections); most from 10.0.0.5 (400)',
      fields: {
        kind: 'connection.bounds',
        seconds: 10,
        counts: { refused: { source: 500 }, gave_way: { connections: 1 } },
        topSource: '10.0.0.5',
        topCount: 400,
      },
    });
  });

  it('ends the spell after a window with none, and writes the next one at once', () => {
    vi.useFakeTimers();
    const { lines, write } = recorder();
    const { hear } = createBoundLog(write, 10_000);
    hear(gaveWay);
    hear(gaveWay);
    vi.advanceTimersByTime(10_000);
    // Only connections that gave way: not a warning.
    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['info', 'the longest idle connection gave way to one from ::1 (http.maxConnections)'],
      [
        'info',
        'connection bounds in the last 10 s: 1 gave way (http.maxConnections); most from ::1 (1)',
      ],
    ]);
    vi.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(2);
    vi.advanceTimersByTime(60_000);
    // A trusted proxy's connection counts against no source: only maxConnections is its bound.
    hear({ bound: 'connections', outcome: 'refused' });
    expect(lines).toHaveLength(3);
    expect(lines[2]?.message).toBe(
      'a connection from a trusted proxy was refused: the gateway holds as many as it may, ' +
        'none idle (http.maxConnections)',
    );
  });

  it('writes the window so far on a stop, and nothing once it is written', () => {
    vi.useFakeTimers();
    const { lines, write } = recorder();
    const quiet = createBoundLog(write, 10_000);
    quiet.flush();
    quiet.hear(refused('10.0.0.5'));
    // The first was written at once: a stop straight after it has nothing to add.
    quiet.flush();
    expect(lines).toHaveLength(1);
    lines.length = 0;

    const bounds = createBoundLog(write, 10_000);
    bounds.hear(refused('10.0.0.5'));
    bounds.hear(refused('10.0.0.5'));
    bounds.hear(refused('10.0.0.5'));
    vi.advanceTimersByTime(10_000);
    bounds.hear(refused('10.0.0.7'));
    vi.advanceTimersByTime(3_240);
    bounds.flush();
    expect(lines.slice(1)).toEqual([
      {
        level: 'warn',
        message:
          'connection bounds in the last 10 s: 2 refused (http.maxConnectionsPerSource); ' +
          'most from 10.0.0.5 (2)',
        fields: expect.objectContaining({ seconds: 10 }) as unknown,
      },
      {
        level: 'warn',
        message:
          'connection bounds in the last 3.2 s: 1 refused (http.maxConnectionsPerSource); ' +
          'most from 10.0.0.7 (1)',
        fields: {
          kind: 'connection.bounds',
          seconds: 3.2,
          counts: { refused: { source: 1 } },
          topSource: '10.0.0.7',
          topCount: 1,
        },
      },
    ]);
    // Flushed, the spell is over: no timer writes it again, and the next is written at once.
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(3);
    bounds.hear(gaveWay);
    expect(lines[3]?.fields).toMatchObject({ kind: 'connection.bound', outcome: 'gave_way' });
  });
});

describe("serve's JSON log of a gateway at its bound", () => {
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });

  /** A connection from `localAddress` that sends part of a request's head. */
  const opened = (port: number, localAddress: string): { closed: Promise<void> } => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => {
      socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    });
    socket.on('error', () => undefined);
    sockets.push(socket);
    return {
      closed: new Promise((resolve) =>
        socket.once('close', () => {
          resolve();
        }),
      ),
    };
  };

  it('warns of a refusal at maxConnections, naming its source; a stop counts the rest', async () => {
    const { lines, log } = jsonServeLog('warn');
    const toolkit = createToolkit({ tools: [] });
    const gateway = await serveHttp(toolkit, {
      port: 0,
      maxConnections: 1,
      maxConnectionsPerSource: 1,
      observe: log.observer,
    });
    try {
      const port = Number(gateway.url.port);
      // Not yet a whole request, the first connection is busy: the second finds no slot.
      opened(port, '127.0.0.2');
      await opened(port, '127.0.0.3').closed;
      const [line] = lines();
      expect(line).toMatchObject({
        level: 'warn',
        kind: 'connection.bound',
        bound: 'connections',
        outcome: 'refused',
        source: '127.0.0.3',
        msg:
          'a connection from 127.0.0.3 was refused: the gateway holds as many as it may, ' +
          'none idle (http.maxConnections)',
      });
      // The next is counted, not written, until the window ends or the log is flushed.
      await opened(port, '127.0.0.4').closed;
      expect(lines()).toHaveLength(1);
      log.flush();
      expect(lines()[1]).toMatchObject({
        level: 'warn',
        kind: 'connection.bounds',
        counts: { refused: { connections: 1 } },
        topSource: '127.0.0.4',
        topCount: 1,
      });
    } finally {
      await gateway.close();
      await toolkit.close();
    }
  });
});
