// What `serve` writes on stderr: lines for a terminal (as before), or one JSON object per line
// (pino) for a log collector, with an audit line per tool call.
import { stripVTControlCharacters } from 'node:util';
import { pino, type Logger as PinoLogger } from 'pino';
import type { GatewayObserver, ToolCallRecord } from '@toolplane/gateway';
import { auditWho, type AuditRecord } from '@toolplane/toolkit';
import type { CliConfig } from '../config.js';
import type { Output } from '../output.js';
import { createBoundLog } from './bound-log.js';

/** The levels `log.level` names, least to most severe. */
export type LogLevel = CliConfig['log']['level'];

/** Extra fields of a JSON line; a text line shows only the message. */
export type LogFields = Readonly<Record<string, unknown>>;

/** `serve`'s log; see {@link createServeLog}. */
export interface ServeLog {
  /** Whether lines are JSON (`--log-format json` or `log.format: json`). */
  readonly json: boolean;
  /** `warning`, coloured for a terminal, to begin a text warning with. */
  readonly warnWord: string;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  /**
   * Hears every tool call and writes its audit line, and the connections that meet the
   * gateway's bounds (a line at once, then one a window while they go on).
   */
  readonly observer: GatewayObserver;
  /** Writes the audit line of a record of the audit log (an approval, a pin change). */
  auditRecord(record: AuditRecord): void;
  /**
   * Writes what the log still holds back, for a stop: the connections that met a bound since
   * the last summary line, counted in one line now rather than lost.
   */
  flush(): void;
}

/** Options of {@link createServeLog}. */
export interface ServeLogOptions {
  readonly output: Output;
  readonly log: CliConfig['log'];
  /** This process's name behind a load balancer: on every line. */
  readonly instanceId?: string;
}

const RANK: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/**
 * `serve`'s log. Text: the lines people read on a terminal, prefixed with the instance, with an
 * audit line per call at level `debug` only. JSON: one object per line (pino) with `level`,
 * `time`, `instance`, the message as `msg` and its fields; every call gets an audit line (`who`:
 * the OAuth subject, else its client, else the session; `tool`; `outcome`; `durationMs`; `session` and `request`),
 * its arguments only with `log.arguments: true`. Every line, either way, passes through the
 * output's masking of the configuration's secrets before it is written; a text message's further
 * lines are indented under its first.
 */
export function createServeLog(options: ServeLogOptions): ServeLog {
  const { output, log, instanceId } = options;
  const least = RANK[log.level];
  const dim = output.errColor.dim;
  const audit = (record: ToolCallRecord): LogFields => ({
    audit: true,
    kind: 'tool.call',
    who: auditWho({
      subject: record.subject,
      clientId: record.clientId,
      session: record.sessionId,
    }),
    tool: record.tool,
    outcome: record.outcome,
    durationMs: Math.round(record.durationMs * 1000) / 1000,
    ...(record.sessionId === undefined ? {} : { session: record.sessionId }),
    ...(record.requestId === undefined ? {} : { request: record.requestId }),
    ...(record.subject === undefined ? {} : { subject: record.subject }),
    ...(record.clientId === undefined ? {} : { client: record.clientId }),
    ...(log.arguments ? { arguments: record.args } : {}),
  });

  // The audit log's records (approvals, pins) as lines: what, who, which tool and definition.
  const logged = (record: AuditRecord): LogFields => ({
    audit: true,
    kind: record.kind,
    tool: record.toolId,
    ...(record.who === undefined ? {} : { who: record.who }),
    ...(record.fingerprint === undefined ? {} : { fingerprint: record.fingerprint }),
    ...(record.previous === undefined ? {} : { previous: record.previous }),
    ...(record.detail === undefined ? {} : { detail: record.detail }),
  });

  if (log.format === 'text') {
    const say = (level: LogLevel, message: string): void => {
      if (RANK[level] < least) return;
      // The further lines of a message (the stderr of a server that failed, as it quotes it)
      // are indented under it: no text of an upstream's starts a line that reads as the log's.
      const text = message.replace(/\n/g, '\n  ');
      output.say(instanceId === undefined ? text : `${dim(`[${instanceId}]`)} ${text}`);
    };
    const warnWord = output.errColor.yellow('warning');
    const bounds = createBoundLog((level, message) => {
      say(level, level === 'warn' ? `${warnWord} ${message}` : message);
    });
    const connectionBound = bounds.hear;
    return {
      json: false,
      warnWord,
      info: (message) => {
        say('info', message);
      },
      warn: (message) => {
        say('warn', message);
      },
      auditRecord: (record) => {
        say('debug', dim(`audit ${record.kind} ${record.toolId} ${record.who ?? ''}`.trimEnd()));
      },
      flush: bounds.flush,
      observer:
        least > RANK.debug
          ? { connectionBound }
          : {
              connectionBound,
              toolCall: (record) => {
                const { who, outcome, durationMs } = audit(record) as Record<string, unknown>;
                say(
                  'debug',
                  dim(
                    `call ${record.tool} ${String(outcome)} ${String(durationMs)} ms ${String(who)}`,
                  ),
                );
              },
            },
    };
  }

  const logger: PinoLogger = pino(
    {
      level: log.level,
      base: { pid: process.pid, ...(instanceId === undefined ? {} : { instance: instanceId }) },
      // Level names, not numbers: a reader of the line needs no table.
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    // The output masks the configuration's secrets in the finished line, arguments included.
    {
      write: (line: string) => {
        output.say(line.endsWith('\n') ? line.slice(0, -1) : line);
      },
    },
  );
  const bounds = createBoundLog((level, message, fields) => {
    logger[level](fields, message);
  });
  return {
    json: true,
    warnWord: 'warning',
    // A message written for a terminal may carry colours: not in a JSON line.
    info: (message, fields = {}) => {
      logger.info(fields, stripVTControlCharacters(message));
    },
    warn: (message, fields = {}) => {
      logger.warn(fields, stripVTControlCharacters(message));
    },
    auditRecord: (record) => {
      logger.info(logged(record), record.kind);
    },
    flush: bounds.flush,
    observer: {
      toolCall: (record) => {
        logger.info(audit(record), 'tool call');
      },
      connectionBound: bounds.hear,
    },
  };
}
