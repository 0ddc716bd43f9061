import { join } from 'node:path';
import { ToolError } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config.js';
import { parseLogFormat } from './serve-observe.js';

const file = join('project', 'toolplane.config.json');

function problem(config: unknown): string {
  try {
    parseConfig(JSON.stringify(config), { file, env: {} });
  } catch (error) {
    if (ToolError.isInstance(error) && error.code === 'invalid_config') return error.message;
    throw error;
  }
  throw new Error('expected an invalid_config error');
}

describe('the log and telemetry sections', () => {
  it('reads them, with text logs at info and no arguments by default', () => {
    const plain = parseConfig('{}', { file, env: {} });
    expect(plain.log).toEqual({ format: 'text', level: 'info', arguments: false });
    expect(plain.telemetry).toEqual({});
    const set = parseConfig(
      JSON.stringify({
        log: { format: 'json', level: 'warn', arguments: true },
        telemetry: {
          otlp: { url: 'http://127.0.0.1:4318/v1/traces', headers: { 'x-key': 'otlp-secret-1' } },
        },
      }),
      { file, env: {} },
    );
    expect(set.log).toEqual({ format: 'json', level: 'warn', arguments: true });
    expect(set.telemetry.otlp?.url).toBe('http://127.0.0.1:4318/v1/traces');
    // A collector's credentials are masked like every other secret of the file.
    expect(set.secrets.redact('key otlp-secret-1')).toBe('key ***');
  });

  it('suggests the key meant for a misspelling, and says what a bad value should be', () => {
    expect(problem({ log: { formt: 'json' } })).toMatch(
      /log: unknown key "formt"; did you mean "format"\?/,
    );
    expect(problem({ telemetry: { otpl: {} } })).toMatch(/did you mean "otlp"\?/);
    expect(problem({ telemetry: { otlp: { ulr: 'http://x' } } })).toMatch(/did you mean "url"\?/);
    expect(problem({ log: { format: 'xml' } })).toMatch(/log\.format: must be "text" or "json"/);
    expect(problem({ log: { level: 'verbose' } })).toMatch(/log\.level: must be "debug"/);
    expect(problem({ telemetry: { otlp: { url: 'ftp://x' } } })).toMatch(
      /telemetry\.otlp\.url: must be an http\(s\) URL/,
    );
  });

  it("ignores Claude Desktop's own telemetry key, which is no object", () => {
    const config = parseConfig(JSON.stringify({ telemetry: false, mcpServers: {} }), {
      file,
      env: {},
    });
    expect(config.telemetry).toEqual({});
  });
});

describe('parseLogFormat', () => {
  it('takes text or json, and refuses anything else with invalid_argument', () => {
    expect(parseLogFormat('json')).toBe('json');
    let code: string | undefined;
    try {
      parseLogFormat('yaml');
    } catch (error) {
      code = ToolError.isInstance(error) ? error.code : undefined;
    }
    expect(code).toBe('invalid_argument');
  });
});
