import { beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, PlatformError, type Platform } from '../../../src/platform/index.js';
import { SYSTEM_PRINCIPAL, type Principal } from '../../../src/platform/files/index.js';
import { sql } from '../../../src/store/index.js';
import { describeEachEngine } from '../../support/engines.js';
import { buildWorld, NOW, type World } from '../world.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function rejects(promise: Promise<unknown>, code: string, message: string) {
  return expect(promise).rejects.toSatisfy(
    (e: unknown) => e instanceof PlatformError && e.code === code && e.message === message,
  );
}

describeEachEngine('file service', (engine) => {
  let w: World;
  let files: Platform['files'];
  let as: (
    login: 'admin' | 'ann' | 'carl' | 'dora' | null,
    mode?: Principal['mode'],
    requestId?: string,
  ) => Principal;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
    files = w.platform.files;
    as = (login, mode = 'LIVE', requestId) => ({
      userId: login === null ? null : w.ids[login],
      isAdmin: login === 'admin',
      mode,
      requestId: requestId ?? null,
    });
  });

  describe('descriptors and content', () => {
    it('creates a file with its descriptor, owned by its creator, and reads it back', async () => {
      const file = await files.create(w.account, as('ann'), {
        name: '  notes.txt ',
        content: Buffer.from('héllo'),
        metadata: { source: 'test' },
      });
      expect(file.id).toMatch(UUID);
      expect(file).toEqual({
        id: file.id,
        accountId: w.account,
        name: 'notes.txt',
        contentType: 'text/plain',
        charset: 'UTF-8',
        size: 6,
        createdAt: NOW,
        updatedAt: NOW,
        ownerId: w.ids.ann,
        ownerRequest: null,
        visibility: 'PRIVATE',
        metadata: { source: 'test' },
      });
      const read = await files.read(w.account, as('ann'), file.id);
      expect(read.file).toEqual(file);
      expect(read.content.toString('utf8')).toBe('héllo');
    });

    it('keeps binary content byte for byte and gives it no charset', async () => {
      const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from([0, 255, 128, 10])]);
      const file = await files.create(w.account, as('ann'), {
        name: 'scan.txt',
        content: pdf,
        charset: 'ISO-8859-1',
      });
      expect([file.contentType, file.charset, file.size]).toEqual(['application/pdf', null, 13]);
      expect((await files.read(w.account, as('ann'), file.id)).content).toEqual(pdf);
      const typed = await files.create(w.account, as('ann'), {
        name: 'x',
        content: Buffer.from('a,b'),
        contentType: 'Text/CSV; charset=UTF-8',
        charset: 'windows-1252',
      });
      expect([typed.contentType, typed.charset]).toEqual(['text/csv; charset=UTF-8', 'windows-1252']);
    });

    it('refuses bad names, types, charsets, visibilities, metadata and sizes', async () => {
      const ann = as('ann');
      const base = { name: 'a.txt', content: Buffer.from('x') };
      await rejects(
        files.create(w.account, ann, { ...base, name: ' ' }),
        'invalid',
        'a file name may not be empty',
      );
      await rejects(
        files.create(w.account, ann, { ...base, name: 'x'.repeat(256) }),
        'invalid',
        'a file name has at most 255 characters',
      );
      await rejects(
        files.create(w.account, ann, { ...base, name: 'a\nb' }),
        'invalid',
        'a file name may not hold control characters',
      );
      await rejects(
        files.create(w.account, ann, { ...base, contentType: 'not a type' }),
        'invalid',
        'invalid content type "not a type"',
      );
      await rejects(
        files.create(w.account, ann, { ...base, charset: 'x-klingon' }),
        'invalid',
        'unsupported charset "x-klingon"',
      );
      await rejects(
        files.create(w.account, ann, { ...base, visibility: 'SECRET' as 'PUBLIC' }),
        'invalid',
        'invalid visibility "SECRET": PRIVATE or PUBLIC',
      );
      await rejects(
        files.create(w.account, ann, { ...base, metadata: JSON.parse('{"__proto__": {"x": 1}}') }),
        'invalid',
        'the metadata may not have a key named __proto__',
      );
      const small = createPlatform(engine.store, {
        fileLimits: { maxFileBytes: 4, maxMetadataBytes: 10 },
      }).files;
      await rejects(
        small.create(w.account, ann, { name: 'big', content: Buffer.from('12345') }),
        'invalid',
        'the file would exceed 4 bytes (maxFileBytes): 5 bytes',
      );
      await rejects(
        small.create(w.account, ann, { ...base, metadata: { long: 'x'.repeat(20) } }),
        'invalid',
        'the metadata exceeds 10 bytes of JSON',
      );
      const f = await small.create(w.account, ann, { name: 'a', content: Buffer.from('123') });
      await rejects(
        small.append(w.account, ann, f.id, Buffer.from('45')),
        'invalid',
        'the file would exceed 4 bytes (maxFileBytes): 5 bytes',
      );
    });

    it('saves, appends and updates, moving the update time only', async () => {
      let now = NOW;
      const platform = createPlatform(engine.store, { clock: () => now });
      const ann = as('ann');
      const f = await platform.files.create(w.account, ann, { name: 'log.txt', content: Buffer.from('a') });
      now += 1000;
      expect(await platform.files.append(w.account, ann, f.id, Buffer.from('bc'))).toMatchObject({
        size: 3,
        createdAt: NOW,
        updatedAt: NOW + 1000,
      });
      now += 1000;
      const saved = await platform.files.save(w.account, ann, f.id, Buffer.from('new'), {
        charset: 'ISO-8859-1',
      });
      expect(saved).toMatchObject({
        size: 3,
        charset: 'ISO-8859-1',
        contentType: 'text/plain',
        updatedAt: NOW + 2000,
      });
      expect((await platform.files.read(w.account, ann, f.id)).content.toString()).toBe('new');
      const updated = await platform.files.update(w.account, ann, f.id, {
        name: 'renamed.csv',
        contentType: 'text/csv',
        visibility: 'PUBLIC',
        metadata: { a: [1, 2] },
      });
      expect(updated).toMatchObject({
        name: 'renamed.csv',
        contentType: 'text/csv',
        charset: 'ISO-8859-1',
        visibility: 'PUBLIC',
        metadata: { a: [1, 2] },
      });
      expect(
        (await platform.files.update(w.account, ann, f.id, { contentType: 'image/png' })).charset,
      ).toBeNull();
    });

    it('deletes a file with its content and grants, and says false for an unknown one', async () => {
      const ann = as('ann');
      const f = await files.create(w.account, ann, { name: 'tmp', content: Buffer.from('x') });
      await files.changeRights(w.account, ann, [f.id], {
        kind: 'user',
        access: 'READ',
        op: 'add',
        principals: ['carl'],
      });
      expect(await files.delete(w.account, ann, f.id)).toBe(true);
      expect(await files.delete(w.account, ann, f.id)).toBe(false);
      await rejects(files.read(w.account, ann, f.id), 'not-found', `Uploaded file ${f.id} doesn't exist.`);
      for (const table of ['upload_contents', 'upload_rights']) {
        const column = table === 'upload_rights' ? 'file_id' : 'id';
        const rows = await engine.store.all(
          sql`SELECT 1 AS x FROM ${sql.raw(table)} WHERE ${sql.raw(column)} = ${f.id}`,
        );
        expect(rows).toEqual([]);
      }
    });

    it('keeps accounts apart: an id of another account does not exist', async () => {
      const other = await buildWorld(engine.store);
      const mine = await files.create(w.account, as('ann'), { name: 'mine', content: Buffer.from('x') });
      await rejects(
        other.platform.files.read(other.account, SYSTEM_PRINCIPAL, mine.id),
        'not-found',
        `Uploaded file ${mine.id} doesn't exist.`,
      );
      expect(await other.platform.files.delete(other.account, SYSTEM_PRINCIPAL, mine.id)).toBe(false);
      expect(
        (await other.platform.files.list(other.account, SYSTEM_PRINCIPAL)).map((f) => f.id),
      ).not.toContain(mine.id);
    });
  });

  describe('rights', () => {
    it('gives the owner and the account admin every right, others none', async () => {
      const f = await files.create(w.account, as('ann'), { name: 'private', content: Buffer.from('x') });
      for (const who of ['ann', 'admin'] as const) {
        expect(await files.can(w.account, as(who), f.id, 'READ')).toBe(true);
        expect(await files.can(w.account, as(who), f.id, 'WRITE')).toBe(true);
      }
      expect(await files.can(w.account, as('carl'), f.id, 'READ')).toBe(false);
      expect(await files.can(w.account, as(null), f.id, 'READ')).toBe(false);
      await rejects(
        files.read(w.account, as('carl'), f.id),
        'not-allowed',
        `Access denied: no READ right on file ${f.id}.`,
      );
      await rejects(
        files.save(w.account, as('carl'), f.id, Buffer.from('y')),
        'not-allowed',
        `Access denied: no WRITE right on file ${f.id}.`,
      );
    });

    it('lets anyone of the account read a PUBLIC file, and only read it', async () => {
      const f = await files.create(w.account, as('ann'), {
        name: 'pub',
        content: Buffer.from('x'),
        visibility: 'PUBLIC',
      });
      expect(await files.can(w.account, as('carl'), f.id, 'READ')).toBe(true);
      expect(await files.can(w.account, as(null), f.id, 'READ')).toBe(true);
      expect(await files.can(w.account, as('carl'), f.id, 'WRITE')).toBe(false);
    });

    it('gives a file created with nobody connected to its request', async () => {
      const f = await files.create(w.account, as(null, 'LIVE', w.request), {
        name: 'req',
        content: Buffer.from('x'),
      });
      expect([f.ownerId, f.ownerRequest]).toEqual([null, w.request]);
      expect(await files.can(w.account, as(null, 'LIVE', w.request), f.id, 'WRITE')).toBe(true);
      expect(await files.can(w.account, as(null, 'LIVE', 'another'), f.id, 'READ')).toBe(false);
      expect(await files.can(w.account, as('carl', 'LIVE', 'another'), f.id, 'READ')).toBe(false);
      const withUser = await files.create(w.account, as('ann', 'LIVE', w.request), {
        name: 'u',
        content: Buffer.from('x'),
      });
      expect([withUser.ownerId, withUser.ownerRequest]).toEqual([w.ids.ann, null]);
    });

    it('grants READ or WRITE to users and lanes, WRITE including READ, lanes by mode', async () => {
      const ann = as('ann');
      const f = await files.create(w.account, ann, { name: 'shared', content: Buffer.from('x') });
      const change = (
        kind: 'user' | 'lane',
        access: 'READ' | 'WRITE',
        op: 'add' | 'remove',
        principals: Array<number | string>,
      ) => files.changeRights(w.account, ann, [f.id], { kind, access, op, principals });

      expect(await change('user', 'READ', 'add', ['carl', 'carl@acme.example', w.ids.carl])).toEqual({
        [f.id]: { user: { READ: [w.ids.carl], WRITE: [] }, lane: { READ: [], WRITE: [] } },
      });
      expect(await files.can(w.account, as('carl'), f.id, 'READ')).toBe(true);
      expect(await files.can(w.account, as('carl'), f.id, 'WRITE')).toBe(false);

      await change('user', 'WRITE', 'add', [String(w.ids.dora)]);
      expect(await files.can(w.account, as('dora'), f.id, 'READ')).toBe(true);
      expect(await files.can(w.account, as('dora'), f.id, 'WRITE')).toBe(true);

      // clerks: ann and carl (LIVE), dora (ACCEPTANCE)
      await change('user', 'WRITE', 'remove', [w.ids.dora]);
      await change('lane', 'WRITE', 'add', [w.ids.clerks]);
      expect(await files.can(w.account, as('dora', 'LIVE'), f.id, 'READ')).toBe(false);
      expect(await files.can(w.account, as('dora', 'ACCEPTANCE'), f.id, 'WRITE')).toBe(true);
      expect(await files.can(w.account, as('carl', 'TEST'), f.id, 'WRITE')).toBe(true);

      expect(await files.rights(w.account, as('carl'), f.id)).toEqual({
        user: { READ: [w.ids.carl], WRITE: [] },
        lane: { READ: [], WRITE: [w.ids.clerks] },
      });
      await change('lane', 'WRITE', 'remove', [String(w.ids.clerks)]);
      await change('user', 'READ', 'remove', ['carl']);
      expect(await files.can(w.account, as('carl'), f.id, 'READ')).toBe(false);
    });

    it('changes the rights of several files all or nothing, only with WRITE on each', async () => {
      const mine = await files.create(w.account, as('carl'), { name: 'c1', content: Buffer.from('x') });
      const theirs = await files.create(w.account, as('ann'), { name: 'a1', content: Buffer.from('x') });
      const grant = {
        kind: 'user' as const,
        access: 'READ' as const,
        op: 'add' as const,
        principals: ['dora'],
      };
      await rejects(
        files.changeRights(w.account, as('carl'), [mine.id, theirs.id], grant),
        'not-allowed',
        `Access denied: no WRITE right on file ${theirs.id}.`,
      );
      expect((await files.rights(w.account, as('carl'), mine.id)).user.READ).toEqual([]);
      await rejects(
        files.changeRights(w.account, as('carl'), [mine.id], { ...grant, principals: ['nobody'] }),
        'not-found',
        'Unable to retrieve user.',
      );
      await rejects(
        files.changeRights(w.account, as('carl'), [mine.id], {
          ...grant,
          kind: 'lane',
          principals: [999999],
        }),
        'not-found',
        'Lane not found.',
      );
      await rejects(
        files.changeRights(w.account, as('carl'), [mine.id], {
          ...grant,
          kind: 'lane',
          principals: ['clerks'],
        }),
        'invalid',
        'invalid lane id "clerks": a lane is named by its id',
      );
      const both = await files.changeRights(w.account, as('admin'), [mine.id, theirs.id], grant);
      expect(Object.keys(both).sort()).toEqual([mine.id, theirs.id].sort());
    });

    it('lists the files a principal may read, oldest first, in pages', async () => {
      const other = await buildWorld(engine.store);
      const p = other.platform.files;
      const id = (login: 'ann' | 'carl' | 'dora' | 'admin') => ({
        userId: other.ids[login],
        isAdmin: login === 'admin',
        mode: 'LIVE' as const,
      });
      const a = await p.create(other.account, id('ann'), { name: 'a', content: Buffer.from('1') });
      const b = await p.create(other.account, id('ann'), {
        name: 'b',
        content: Buffer.from('2'),
        visibility: 'PUBLIC',
      });
      const c = await p.create(other.account, id('dora'), { name: 'c', content: Buffer.from('3') });
      const d = await p.create(other.account, id('dora'), { name: 'd', content: Buffer.from('4') });
      await p.changeRights(other.account, id('dora'), [c.id], {
        kind: 'lane',
        access: 'READ',
        op: 'add',
        principals: [other.ids.clerks],
      });
      await p.changeRights(other.account, id('dora'), [d.id], {
        kind: 'user',
        access: 'WRITE',
        op: 'add',
        principals: ['carl'],
      });
      const names = async (who: Principal) => (await p.list(other.account, who)).map((f) => f.name).sort();
      expect(await names(id('carl'))).toEqual(['b', 'c', 'd']);
      expect(await names(id('ann'))).toEqual(['a', 'b', 'c']);
      expect(await names(id('admin'))).toEqual(['a', 'b', 'c', 'd']);
      expect(await names({ userId: null, isAdmin: false, mode: 'LIVE' })).toEqual(['b']);
      // all made at the same instant: ties are ordered by id
      const byId = [a, b, c, d].map((f) => f.id).sort();
      expect((await p.list(other.account, id('admin'), { first: 1, limit: 2 })).map((f) => f.id)).toEqual(
        byId.slice(1, 3),
      );
    });
  });

  describe('archives', () => {
    it('zips readable files and unzips them into new files owned by the caller', async () => {
      const ann = as('ann');
      const one = await files.create(w.account, ann, { name: 'one.txt', content: Buffer.from('1') });
      const two = await files.create(w.account, ann, { name: 'two.csv', content: Buffer.from('a;b') });
      const zip = await files.zip(w.account, ann, [one.id, two.id, one.id], 'both.zip');
      expect([zip.name, zip.contentType, zip.charset]).toEqual(['both.zip', 'application/zip', null]);
      await files.changeRights(w.account, ann, [zip.id], {
        kind: 'user',
        access: 'READ',
        op: 'add',
        principals: ['carl'],
      });
      const out = await files.unzip(w.account, as('carl'), zip.id);
      expect(out.map((f) => [f.name, f.contentType, f.size, f.ownerId])).toEqual([
        ['one.txt', 'text/plain', 1, w.ids.carl],
        ['two.csv', 'text/csv', 3, w.ids.carl],
      ]);
      await rejects(
        files.zip(w.account, as('carl'), [one.id], 'x.zip'),
        'not-allowed',
        `Access denied: no READ right on file ${one.id}.`,
      );
      await rejects(files.zip(w.account, ann, [], 'x.zip'), 'invalid', 'no file to zip');
    });

    it('creates nothing when an archive breaks a limit midway', async () => {
      const other = await buildWorld(engine.store);
      const small = createPlatform(engine.store, { fileLimits: { maxZipUncompressedBytes: 5 } }).files;
      const who = { userId: other.ids.ann, isAdmin: false, mode: 'LIVE' as const };
      const a = await small.create(other.account, who, { name: 'a', content: Buffer.from('123') });
      const b = await small.create(other.account, who, { name: 'b', content: Buffer.from('45') });
      const zip = await small.zip(other.account, who, [a.id, b.id], 'ab.zip');
      const c = await small.create(other.account, who, { name: 'c', content: Buffer.from('678') });
      const bigger = await other.platform.files.zip(other.account, who, [a.id, b.id, c.id], 'abc.zip');
      await rejects(
        small.zip(other.account, who, [a.id, b.id, bigger.id], 'x.zip'),
        'invalid',
        'the files to zip exceed 5 bytes (maxZipUncompressedBytes)',
      );
      const before = (await small.list(other.account, who)).length;
      await rejects(
        small.unzip(other.account, who, bigger.id),
        'invalid',
        'the archive inflates to more than 5 bytes (maxZipUncompressedBytes)',
      );
      expect((await small.list(other.account, who)).length).toBe(before);
      expect((await small.unzip(other.account, who, zip.id)).map((f) => f.name)).toEqual(['a', 'b']);
    });
  });
});
