import { describe, expect, it } from 'vitest';
import { getSession, runInSession } from './session.js';

describe('getSession outside a served call', () => {
  it('logs to nobody and refuses to elicit or sample with no_delegate', async () => {
    const session = getSession();
    await expect(session.log('info', 'nobody hears this')).resolves.toBeUndefined();
    await expect(
      session.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: {} } }),
    ).rejects.toMatchObject({ code: 'no_delegate' });
    await expect(
      session.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 10,
      }),
    ).rejects.toMatchObject({ code: 'no_delegate' });
  });

  it('inherits the fields a nested session does not set', async () => {
    const heard: unknown[] = [];
    await runInSession(
      {
        log: (level, data) => {
          heard.push([level, data]);
          return Promise.resolve();
        },
      },
      () => runInSession({ id: 'inner' }, () => getSession().log('warning', 'deep')),
    );
    expect(heard).toEqual([['warning', 'deep']]);
  });
});
