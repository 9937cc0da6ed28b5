import { beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, PlatformError, type Platform } from '../../src/platform/index.js';
import { accessUrl, accountUrls } from '../../src/platform/accounts.js';
import { verifyPassword } from '../../src/platform/directory/index.js';
import { describeEachEngine } from '../support/engines.js';

function rejects(promise: Promise<unknown>, code: string, message: string) {
  return expect(promise).rejects.toSatisfy(
    (e: unknown) => e instanceof PlatformError && e.code === code && e.message === message,
  );
}

describe('account URLs', () => {
  it('derives P_urls and the access URL from the base URL', () => {
    const account = { id: 'acme', baseUrl: 'https://flow.example.com:8443' };
    expect(accountUrls(account)).toEqual({
      domain: 'flow.example.com:8443',
      host: 'https://flow.example.com:8443/',
      live: 'https://flow.example.com:8443/live/acme/',
      portal: 'https://flow.example.com:8443/portal/acme/',
    });
    expect(accessUrl(account, true)).toBe('https://flow.example.com:8443');
    expect(accessUrl(account, false)).toBe('flow.example.com:8443');
  });
});

describeEachEngine('directory', (engine) => {
  let platform: Platform;
  let now = 1_700_000_000_000;
  beforeAll(async () => {
    platform = createPlatform(engine.store, { clock: () => now });
    await platform.accounts.create({ id: 'acme', name: 'Acme', baseUrl: 'https://acme.example/' });
    await platform.accounts.create({ id: 'other' });
  });

  it('creates accounts once, with defaults, and refuses bad ids', async () => {
    expect(await platform.accounts.get('acme')).toEqual({
      id: 'acme',
      name: 'Acme',
      locale: 'en_US',
      timeZone: 'UTC',
      baseUrl: 'https://acme.example',
      createdAt: now,
    });
    await rejects(platform.accounts.create({ id: 'acme' }), 'conflict', 'account acme already exists');
    await rejects(
      platform.accounts.create({ id: '../x' }),
      'invalid',
      'invalid account id "../x": letters, digits, _ . - (at most 64)',
    );
    await rejects(platform.accounts.require('nope'), 'not-found', 'Account nope not found.');
    expect((await platform.accounts.list()).map((a) => a.id)).toEqual(['acme', 'other']);
  });

  it('creates users and finds them by id, login, email or id text, within their account only', async () => {
    const { users } = platform.directory;
    const ann = await users.create('acme', {
      login: 'ann',
      email: 'Ann@Acme.example',
      name: 'Ann Smith',
      profile: 'DESIGNER',
      isAdmin: true,
      metadata: { dept: 'sales' },
      password: 's3cret',
    });
    expect(ann).toEqual({
      id: ann.id,
      accountId: 'acme',
      login: 'ann',
      email: 'ann@acme.example',
      name: 'Ann Smith',
      profile: 'DESIGNER',
      status: 'active',
      isAdmin: true,
      language: 'en',
      preferences: {},
      metadata: { dept: 'sales' },
      createdAt: now,
      updatedAt: now,
    });
    expect(Number.isInteger(ann.id)).toBe(true);
    expect((await users.find('acme', ann.id))?.login).toBe('ann');
    expect((await users.find('acme', 'ann'))?.id).toBe(ann.id);
    expect((await users.find('acme', 'ANN@acme.example'))?.id).toBe(ann.id);
    expect((await users.find('acme', String(ann.id)))?.id).toBe(ann.id);
    expect(await users.find('other', 'ann')).toBeUndefined();
    expect(await users.find('other', ann.id)).toBeUndefined();
    await rejects(users.require('other', 'ann'), 'not-found', 'Unable to retrieve user.');
    // The same login may exist in another account.
    const otherAnn = await users.create('other', { login: 'ann' });
    expect(otherAnn.id).not.toBe(ann.id);
    expect(otherAnn).toMatchObject({ name: 'ann', profile: 'USER', isAdmin: false, email: null });
  });

  it('refuses a duplicate login or email and invalid fields', async () => {
    const { users } = platform.directory;
    await users.create('acme', { login: 'dup', email: 'dup@acme.example' });
    await rejects(
      users.create('acme', { login: 'dup' }),
      'conflict',
      'the login dup is already used by another user',
    );
    await rejects(
      users.create('acme', { login: 'dup2', email: 'DUP@acme.example' }),
      'conflict',
      'the email dup@acme.example is already used by another user',
    );
    await rejects(users.create('acme', { login: ' ' }), 'invalid', 'invalid user login " "');
    await rejects(users.create('acme', { login: 'x', email: 'nope' }), 'invalid', 'invalid email "nope"');
    await rejects(
      users.create('acme', { login: 'x', status: 'gone' as never }),
      'invalid',
      'invalid user status "gone": active or blocked',
    );
    await rejects(
      users.create('acme', { login: 'x', metadata: JSON.parse('{"__proto__": {"polluted": 1}}') }),
      'invalid',
      'metadata may not have a key named __proto__',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('hashes passwords with scrypt and verifies them', async () => {
    const { users } = platform.directory;
    expect((await users.verifyPassword('acme', 'ann', 's3cret'))?.login).toBe('ann');
    expect(await users.verifyPassword('acme', 'ann', 'wrong')).toBeUndefined();
    expect(await users.verifyPassword('other', 'ann', 's3cret')).toBeUndefined();
    const row = await engine.store.get<{ password_hash: string }>(
      (await import('../../src/store/index.js'))
        .sql`SELECT password_hash FROM users WHERE login = ${'ann'} AND account_id = ${'acme'}`,
    );
    expect(row!.password_hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await verifyPassword('s3cret', 'garbage')).toBe(false);
  });

  it('updates users and unblocks a blocked one', async () => {
    const { users } = platform.directory;
    const bob = await users.create('acme', { login: 'bob', status: 'blocked' });
    now += 1000;
    expect(await users.update('acme', bob.id, { name: 'Bob', language: 'fr' })).toMatchObject({
      name: 'Bob',
      language: 'fr',
      status: 'blocked',
      updatedAt: now,
    });
    expect((await users.unblock('acme', 'bob')).status).toBe('active');
    expect((await users.unblock('acme', 'bob')).status).toBe('active');
    await rejects(users.unblock('acme', 'nobody'), 'not-found', 'Unable to retrieve user.');
    await rejects(users.update('other', bob.id, { name: 'x' }), 'not-found', 'Unable to retrieve user.');
  });

  it('edits preferences and metadata at a path, atomically', async () => {
    const { users } = platform.directory;
    const u = await users.create('acme', { login: 'meta', metadata: { a: { list: [1, 2] }, s: 'text' } });
    expect(await users.editDocument('acme', u.id, 'metadata', 'a.list.1', 5)).toEqual({
      a: { list: [1, 5] },
      s: 'text',
    });
    expect(await users.editDocument('acme', u.id, 'metadata', 'a.list.3', { x: 1 })).toEqual({
      a: { list: [1, 5, null, { x: 1 }] },
      s: 'text',
    });
    expect(await users.editDocument('acme', u.id, 'metadata', 'b.0.c', true)).toEqual({
      a: { list: [1, 5, null, { x: 1 }] },
      s: 'text',
      b: [{ c: true }],
    });
    await rejects(users.editDocument('acme', u.id, 'metadata', 's.x', 1), 'invalid', 'CastClassException');
    await rejects(
      users.editDocument('acme', u.id, 'metadata', 'a.list.x', 1),
      'invalid',
      'CastClassException',
    );
    await rejects(users.editDocument('acme', u.id, 'metadata', 'a..b', 1), 'invalid', 'Malformed Object');
    await rejects(
      users.editDocument('acme', u.id, 'metadata', 'a.__proto__.x', 1),
      'not-allowed',
      'path segment __proto__ is not allowed',
    );
    expect(await users.editDocument('acme', u.id, 'preferences', '', { theme: 'dark' })).toEqual({
      theme: 'dark',
    });
    expect((await users.require('acme', u.id)).preferences).toEqual({ theme: 'dark' });
  });

  it('keeps delegations and reports the delegators in force', async () => {
    const { users } = platform.directory;
    const boss = await users.create('acme', { login: 'boss' });
    const aide = await users.create('acme', { login: 'aide' });
    const temp = await users.create('acme', { login: 'temp' });
    await users.delegate('acme', boss.id, aide.id);
    await users.delegate('acme', temp.id, aide.id, { startsAt: now + 10_000 });
    expect((await users.delegatorsOf('acme', aide.id, now)).map((u) => u.login)).toEqual(['boss']);
    expect((await users.delegatorsOf('acme', aide.id, now + 10_000)).map((u) => u.login)).toEqual([
      'boss',
      'temp',
    ]);
    await users.delegate('acme', boss.id, aide.id, { endsAt: now });
    expect((await users.delegatorsOf('acme', aide.id, now)).map((u) => u.login)).toEqual([]);
    expect(await users.removeDelegation('acme', boss.id, aide.id)).toBe(true);
    expect(await users.removeDelegation('acme', boss.id, aide.id)).toBe(false);
    await rejects(users.delegate('other', boss.id, aide.id), 'not-found', 'Unable to retrieve user.');
  });

  it('keeps a runtime lane a runtime lane: it takes no rule', async () => {
    const { lanes, jobs } = platform.directory;
    const pool = await lanes.createPool('acme', { name: 'Runtime' });
    const lane = await lanes.createLane('acme', pool.id, { name: 'On call', runtime: true });
    expect(lane).toMatchObject({ name: 'On call', runtime: true, rule: null });
    expect((await lanes.createLane('acme', pool.id, { name: 'Plain' })).runtime).toBe(false);
    await expect(jobs.setRule('acme', lane.id, { status: 'active' })).rejects.toThrow(
      `lane ${lane.id} is a runtime lane: its users come from scripts, not a rule`,
    );
    expect((await lanes.require('acme', lane.id)).rule).toBeNull();
  });

  it('keeps lane membership per mode and per account', async () => {
    const { users, lanes } = platform.directory;
    const pool = await lanes.createPool('acme', { name: 'Sales' });
    const lane = await lanes.createLane('acme', pool.id, { name: 'Clerks' });
    expect(lane).toMatchObject({
      accountId: 'acme',
      poolId: pool.id,
      name: 'Clerks',
      parentId: null,
      rule: null,
    });
    const a = await users.create('acme', { login: 'lane-a' });
    const b = await users.create('acme', { login: 'lane-b' });
    expect(await lanes.addMember('acme', lane.id, 'LIVE', b.id)).toEqual([b.id]);
    expect(await lanes.addMember('acme', lane.id, 'LIVE', a.id)).toEqual([a.id, b.id]);
    expect(await lanes.addMember('acme', lane.id, 'LIVE', a.id)).toEqual([a.id, b.id]);
    expect(await lanes.addMember('acme', lane.id, 'ACCEPTANCE', b.id)).toEqual([b.id]);
    expect(
      (await lanes.members('acme', lane.id, 'LIVE', { first: 1, limit: 10 })).map((u) => u.login),
    ).toEqual(['lane-b']);
    expect((await lanes.lanesOf('acme', a.id, 'LIVE')).map((l) => l.name)).toEqual(['Clerks']);
    expect(await lanes.lanesOf('acme', a.id, 'ACCEPTANCE')).toEqual([]);
    expect(await lanes.isInAnyLane('acme', a.id, [999999, lane.id], 'LIVE')).toBe(true);
    expect(await lanes.isInAnyLane('acme', a.id, [lane.id], 'ACCEPTANCE')).toBe(false);
    expect(await lanes.removeMember('acme', lane.id, 'LIVE', b.id)).toEqual([a.id]);
    await rejects(lanes.addMember('other', lane.id, 'LIVE', a.id), 'not-found', 'Lane not found.');
    await rejects(
      lanes.addMember('acme', lane.id, 'LIVE', 987654321),
      'not-found',
      'Unable to retrieve user.',
    );
    await rejects(lanes.createLane('other', pool.id, { name: 'x' }), 'not-found', 'Pool not found.');
    expect((await lanes.listPools('acme')).map((p) => p.name)).toContain('Sales');
    expect((await lanes.listLanes('acme', pool.id)).map((l) => l.name)).toEqual(['Clerks']);
  });

  it('computes rule lanes through lane jobs', async () => {
    const { users, lanes, jobs } = platform.directory;
    const pool = await lanes.createPool('acme', { name: 'Rules' });
    const lane = await lanes.createLane('acme', pool.id, { name: 'Sales people' });
    const c = await users.create('acme', { login: 'rule-c', metadata: { dept: 'sales' } });
    await jobs.run({ accountId: 'acme', max: 1000 });
    await jobs.setRule('acme', lane.id, { 'metadata.dept': 'sales', status: 'active' });
    expect(await jobs.pending('acme', lane.id)).toBe(1);
    const d = await users.create('acme', { login: 'rule-d', metadata: { dept: 'hr' } });
    expect(await jobs.pending('acme', lane.id)).toBe(2);
    expect(await lanes.memberIds('acme', lane.id, 'LIVE')).toEqual([]);
    expect(await jobs.run({ accountId: 'acme' })).toBeGreaterThanOrEqual(2);
    expect(await jobs.pending('acme', lane.id)).toBe(0);
    const expected = (await users.list('acme'))
      .filter((u) => u.metadata.dept === 'sales' && u.status === 'active')
      .map((u) => u.id);
    expect(expected).toContain(c.id);
    expect(await lanes.memberIds('acme', lane.id, 'LIVE')).toEqual(expected);
    await users.update('acme', d.id, { metadata: { dept: 'sales' } });
    await users.update('acme', c.id, { status: 'blocked' });
    expect(await jobs.pending('acme', lane.id)).toBe(2);
    await jobs.run();
    const ids = await lanes.memberIds('acme', lane.id, 'LIVE');
    expect(ids).toContain(d.id);
    expect(ids).not.toContain(c.id);
    expect(await lanes.memberIds('acme', lane.id, 'ACCEPTANCE')).toEqual([]);
    await rejects(
      jobs.setRule('acme', lane.id, { $where: 'true' }),
      'not-allowed',
      'operator $where is not allowed in a lane rule',
    );
    await rejects(
      jobs.setRule('acme', lane.id, { a: { $nope: 1 } }),
      'invalid',
      'invalid lane rule: unknown query operator $nope',
    );
  });

  it('runs lane jobs periodically', async () => {
    const { users, lanes, jobs } = platform.directory;
    const pool = await lanes.createPool('acme', { name: 'Periodic' });
    const lane = await lanes.createLane('acme', pool.id, { name: 'Designers' });
    const designer = await users.create('acme', { login: 'designer', profile: 'DESIGNER' });
    await jobs.setRule('acme', lane.id, { profile: 'DESIGNER' });
    const stop = jobs.runPeriodically(10);
    try {
      for (let i = 0; i < 200 && (await jobs.pending('acme', lane.id)) > 0; i++)
        await new Promise((r) => setTimeout(r, 10));
    } finally {
      stop();
    }
    expect(await jobs.pending('acme', lane.id)).toBe(0);
    expect(await lanes.memberIds('acme', lane.id, 'LIVE')).toContain(designer.id);
  });

  it('finds managers up an organisation chart', async () => {
    const { users, lanes, organisation } = platform.directory;
    const ceo = await users.create('acme', { login: 'org-ceo' });
    const vp = await users.create('acme', { login: 'org-vp' });
    const clerk = await users.create('acme', { login: 'org-clerk' });
    const loner = await users.create('acme', { login: 'org-loner' });
    const org = await lanes.createPool('acme', { name: 'Org', isOrganization: true });
    const top = await lanes.createLane('acme', org.id, { name: 'Company', managerId: ceo.id });
    const sales = await lanes.createLane('acme', org.id, {
      name: 'Sales',
      parentId: top.id,
      managerId: vp.id,
    });
    const desk = await lanes.createLane('acme', org.id, { name: 'Desk', parentId: sales.id });
    await lanes.addMember('acme', desk.id, 'LIVE', clerk.id);
    await lanes.addMember('acme', sales.id, 'LIVE', vp.id);
    expect(await organisation.managerOf('acme', clerk.id, 1)).toBe(vp.id);
    expect(await organisation.managerOf('acme', clerk.id, 2)).toBe(ceo.id);
    expect(await organisation.managerOf('acme', vp.id, 1)).toBe(ceo.id);
    await rejects(organisation.managerOf('acme', clerk.id, 3), 'not-found', 'No manager found.');
    await rejects(organisation.managerOf('acme', ceo.id, 1), 'not-found', 'No manager found.');
    // ACCEPTANCE membership and non-organisation pools do not count.
    const plain = await lanes.createPool('acme', { name: 'Plain' });
    const managed = await lanes.createLane('acme', plain.id, { name: 'Managed', managerId: ceo.id });
    await lanes.addMember('acme', managed.id, 'LIVE', loner.id);
    await lanes.addMember('acme', desk.id, 'ACCEPTANCE', loner.id);
    await rejects(organisation.managerOf('acme', loner.id, 1), 'not-found', 'No manager found.');
    await rejects(
      lanes.updateLane('acme', top.id, { parentId: desk.id }),
      'invalid',
      `lane ${desk.id} is below lane ${top.id}: no cycles in an organisation`,
    );
  });
});
