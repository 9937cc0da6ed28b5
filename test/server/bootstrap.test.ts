/**
 * First start (src/server/bootstrap.ts), shared by `flowmark serve` and `flowmark run`: the first
 * account, its administrator when it has no user, one password however many processes start at
 * once, and accounts with users left alone.
 */
import { expect, it } from 'vitest';
import { createPlatform } from '../../src/platform/index.js';
import { bootstrapFirstAccount, ensureFirstAccount } from '../../src/server/bootstrap.js';
import { describeEachEngine } from '../support/engines.js';

describeEachEngine('first start', (engine) => {
  it('run’s account (no user) gets its administrator at the next bootstrap; one password when two processes race', async () => {
    const platform = createPlatform(engine.store);
    expect(await ensureFirstAccount(platform)).toBe('default');
    expect(await ensureFirstAccount(platform)).toBe('default');
    expect((await platform.accounts.list()).map((a) => a.id)).toEqual(['default']);
    expect(await platform.directory.users.list('default')).toEqual([]);

    const other = createPlatform(await engine.openStore());
    const results = await Promise.all([bootstrapFirstAccount(platform), bootstrapFirstAccount(other)]);
    const created = results.filter((r) => r !== undefined);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ accountId: 'default', createdAccount: false, login: 'admin' });
    const admin = await platform.directory.users.verifyPassword('default', 'admin', created[0]!.password);
    expect(admin).toMatchObject({ login: 'admin', isAdmin: true, profile: 'ADMIN', status: 'active' });
    expect(await bootstrapFirstAccount(platform)).toBeUndefined();
    expect(await platform.directory.users.list('default')).toHaveLength(1);
  });

  it('leaves an account that has users as it is, even without an administrator; several accounts: no choice', async () => {
    const platform = createPlatform(engine.store);
    await platform.directory.users.update(
      'default',
      (await platform.directory.users.require('default', 'admin')).id,
      {
        isAdmin: false,
      },
    );
    expect(await bootstrapFirstAccount(platform)).toBeUndefined();
    expect((await platform.directory.users.list('default')).map((u) => [u.login, u.isAdmin])).toEqual([
      ['admin', false],
    ]);

    await platform.accounts.create({ id: 'other' });
    expect(await ensureFirstAccount(platform)).toBe('default');
    expect(await bootstrapFirstAccount(platform)).toBeUndefined();
    expect(await platform.directory.users.list('other')).toEqual([]);
  });
});

describeEachEngine('first start without "default"', (engine) => {
  it('the only account is the first one; several without "default" give none', async () => {
    const platform = createPlatform(engine.store);
    await platform.accounts.create({ id: 'acme' });
    expect(await ensureFirstAccount(platform)).toBe('acme');
    const first = await bootstrapFirstAccount(platform);
    expect(first).toMatchObject({ accountId: 'acme', createdAccount: false, login: 'admin' });
    await platform.accounts.create({ id: 'globex' });
    expect(await ensureFirstAccount(platform)).toBeUndefined();
    expect(await bootstrapFirstAccount(platform)).toBeUndefined();
    expect((await platform.accounts.list()).map((a) => a.id).sort()).toEqual(['acme', 'globex']);
  });
});

describeEachEngine('first start on an empty store', (engine) => {
  it('creates "default" and its administrator at once', async () => {
    const platform = createPlatform(engine.store);
    const first = await bootstrapFirstAccount(platform);
    expect(first).toMatchObject({ accountId: 'default', createdAccount: true, login: 'admin' });
    expect(first!.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await ensureFirstAccount(platform)).toBe('default');
    expect(await bootstrapFirstAccount(platform)).toBeUndefined();
  });
});
