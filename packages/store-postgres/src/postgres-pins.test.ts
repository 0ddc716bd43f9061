import { fingerprintTool, type PinEvent } from '@toolplane/toolkit';
import { describePinStoreContract } from '@toolplane/toolkit/testing/vitest';
import type { ToolError } from '@toolplane/toolmodel';
import { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import { createPostgresPinStore } from './postgres-pins.js';
import { hasPostgres } from './testing/postgres-server.js';
import { useThrowawayPostgres } from './testing/throwaway-postgres.js';

const available = hasPostgres();

describe.runIf(available)('createPostgresPinStore', () => {
  const server = useThrowawayPostgres();
  let schemas = 0;
  let schema = '';

  // Each contract test gets a schema of its own, so they start empty.
  describePinStoreContract('on a throwaway server', {
    create: () =>
      createPostgresPinStore({
        connectionString: server().url,
        schema: (schema = `pins_${String(++schemas)}`),
      }),
    reopen: () => createPostgresPinStore({ connectionString: server().url, schema, listen: false }),
  });

  it('rejects a bad schema name', async () => {
    await expect(
      createPostgresPinStore({ connectionString: server().url, schema: 'Bad-Name' }),
    ).rejects.toMatchObject({ code: 'invalid_config' });
  });

  it('keeps running when its re-read after a reconnect fails, and hears writes once it can read', async () => {
    const admin = new Pool({ connectionString: server().url });
    schema = `pins_${String(++schemas)}`;
    // A role of its own, so its right to read the pins can be taken away from it alone.
    const role = `pin_reader_${String(schemas)}`;
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'secret-pw'`);
    await admin.query(`GRANT CREATE ON DATABASE toolplane TO ${role}`);
    const roleUrl = new URL(server().url);
    roleUrl.username = role;
    roleUrl.password = 'secret-pw';
    let reReadFailed: (error: ToolError) => void = () => undefined;
    const failed = new Promise<ToolError>((resolve) => {
      reReadFailed = resolve;
    });
    const one = await createPostgresPinStore({
      connectionString: roleUrl.href,
      schema,
      onError: (error) => {
        if (error.message.includes('re-read')) reReadFailed(error);
      },
    });
    const two = await createPostgresPinStore({
      connectionString: server().url,
      schema,
      listen: false,
    });
    try {
      await admin.query(`REVOKE SELECT ON ${schema}.tool_pins FROM ${role}`);
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 AND query = $2',
        [role, `LISTEN "${schema}_pins"`],
      );
      // Back, the listener cannot re-read what it missed: said, not thrown at the process.
      expect((await failed).code).toBe('store_error');
      await admin.query(`GRANT SELECT ON ${schema}.tool_pins TO ${role}`);
      const heard = new Promise<PinEvent>((resolve) => {
        one.watch((event) => {
          if (event.tool === 'later') resolve(event);
        });
      });
      const pin = {
        namespace: 'gh',
        tool: 'later',
        ...fingerprintTool({ name: 'later' }),
        pinnedAt: 1,
      };
      await two.pinFirst(pin, {
        kind: 'pin.first',
        at: 1,
        toolId: 'gh:later',
        fingerprint: pin.fingerprint,
      });
      expect(await heard).toEqual({ namespace: 'gh', tool: 'later' });
    } finally {
      await one.close();
      await two.close();
      await admin.end();
    }
  });
});
