import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { firstBlock, firstExample, onAFreePort } from './tarball-app.js';

// The tarball test (an e2e file) runs the serving examples on a free port: these check, in the
// fast tier, that the rewrite finds the README's port in each, so none falls back to 8808.

const readme = (folder: string): Promise<string> =>
  readFile(new URL(`../../${folder}/README.md`, import.meta.url), 'utf8');

describe('onAFreePort', () => {
  it('turns the README port into port 0, leaving other numbers alone', () => {
    expect(onAFreePort('serveHttp(toolkit, { port: 8808, auth }); // port: 88080')).toBe(
      'serveHttp(toolkit, { port: 0, auth }); // port: 88080',
    );
    expect(onAFreePort('http: { port: 8808 } # and port: 8808 again')).toBe(
      'http: { port: 0 } # and port: 0 again',
    );
  });

  it.each(['oauth', 'dashboard'])(
    'leaves no fixed port in the %s first example',
    async (folder) => {
      const example = firstExample({ folder, name: folder, readme: await readme(folder) });
      expect(example).toContain('port: 8808');
      expect(onAFreePort(example)).not.toMatch(/port: [1-9]/);
    },
  );

  it('leaves no fixed port in the config the CLI README opens with', async () => {
    const config = firstBlock(await readme('cli'), 'yaml') ?? '';
    expect(config).toContain('port: 8808');
    expect(onAFreePort(config)).not.toMatch(/port: [1-9]/);
  });
});
