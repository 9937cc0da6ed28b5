import { beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, PlatformError } from '../../../src/platform/index.js';
import type { Principal } from '../../../src/platform/files/index.js';
import { describeEachEngine } from '../../support/engines.js';
import { buildWorld, NOW, type World } from '../world.js';

function rejects(promise: Promise<unknown>, code: string, message: string) {
  return expect(promise).rejects.toSatisfy(
    (e: unknown) => e instanceof PlatformError && e.code === code && e.message === message,
  );
}

describeEachEngine('application instances', (engine) => {
  let w: World;
  let ann: { principal: Principal; actor: { userId: number; login: string } };
  let carl: { principal: Principal; actor: { userId: number; login: string } };
  beforeAll(async () => {
    w = await buildWorld(engine.store);
    const who = (login: 'ann' | 'carl') => ({
      principal: { userId: w.ids[login], isAdmin: false, mode: 'LIVE' as const },
      actor: { userId: w.ids[login], login },
    });
    ann = who('ann');
    carl = who('carl');
  });

  it('creates an instance with its metadata and a first history entry', async () => {
    const apps = w.platform.applications;
    const instance = await apps.create(w.account, ann.actor, {
      id: 'inst-1',
      projectId: w.ids.project,
      webInterfaceId: w.ids.orders,
      requestId: w.request,
      stepId: 3,
      mode: 'LIVE',
      title: 'Orders',
      data: { customer: 'Acme', amount: 10 },
      uploadWidgets: ['invoice', 'photos'],
    });
    expect(instance).toEqual({
      id: 'inst-1',
      accountId: w.account,
      projectId: w.ids.project,
      webInterfaceId: w.ids.orders,
      requestId: w.request,
      stepId: '3',
      mode: 'LIVE',
      status: 'OPEN',
      title: 'Orders',
      data: { customer: 'Acme', amount: 10 },
      uploadWidgets: ['invoice', 'photos'],
      createdAt: NOW,
      createdBy: w.ids.ann,
      updatedAt: NOW,
      updatedBy: w.ids.ann,
    });
    expect(await apps.require(w.account, 'inst-1')).toEqual(instance);
    const [entry] = await apps.history(w.account, { instanceId: 'inst-1' });
    expect(entry).toEqual({
      id: entry!.id,
      instanceId: 'inst-1',
      requestId: w.request,
      at: NOW,
      userId: w.ids.ann,
      login: 'ann',
      stepId: '3',
      action: 'create',
      changes: { customer: { old: null, new: 'Acme' }, amount: { old: null, new: 10 } },
    });
    await rejects(
      apps.create(w.account, ann.actor, { id: 'inst-1', mode: 'LIVE' }),
      'conflict',
      'application instance inst-1 already exists',
    );
    await rejects(apps.require(w.account, 'nope'), 'not-found', 'Application instance nope not found.');
    await rejects(
      apps.create(w.account, ann.actor, { mode: 'LIVE', uploadWidgets: ['a b'] }),
      'invalid',
      'invalid upload widget id "a b"',
    );
    await rejects(
      apps.create(w.account, ann.actor, { mode: 'PROD' as 'LIVE' }),
      'invalid',
      'invalid mode "PROD"',
    );
    await rejects(
      apps.create(w.account, ann.actor, { id: '../x', mode: 'LIVE' }),
      'invalid',
      'invalid instance id "../x"',
    );
  });

  it('records who changed which fields, at which step, only when something changed', async () => {
    let now = NOW;
    const platform = createPlatform(engine.store, { clock: () => now });
    const apps = platform.applications;
    const i = await apps.create(w.account, ann.actor, {
      mode: 'LIVE',
      requestId: 'req-h',
      data: { a: 1, b: 'x' },
    });
    now += 10;
    const after = await apps.update(
      w.account,
      carl.actor,
      i.id,
      { data: { a: 2, b: null, c: [1] }, stepId: 'approve' },
      'submit',
    );
    expect([after.data, after.stepId, after.updatedAt, after.updatedBy]).toEqual([
      { a: 2, c: [1] },
      'approve',
      NOW + 10,
      w.ids.carl,
    ]);
    now += 10;
    await apps.update(w.account, carl.actor, i.id, { data: { a: 2 } });
    await apps.update(w.account, ann.actor, i.id, { status: 'CLOSED' });
    await apps.recordAction(w.account, { userId: null, login: null }, i.id, 'reminder');
    const history = await apps.history(w.account, { requestId: 'req-h' });
    expect(history.map((h) => [h.at, h.login, h.stepId, h.action, h.changes])).toEqual([
      [NOW, 'ann', null, 'create', { a: { old: null, new: 1 }, b: { old: null, new: 'x' } }],
      [
        NOW + 10,
        'carl',
        'approve',
        'submit',
        {
          a: { old: 1, new: 2 },
          b: { old: 'x', new: null },
          c: { old: null, new: [1] },
          step: { old: null, new: 'approve' },
        },
      ],
      [NOW + 20, 'ann', 'approve', 'update', { status: { old: 'OPEN', new: 'CLOSED' } }],
      [NOW + 20, null, 'approve', 'reminder', {}],
    ]);
  });

  describe('attached files', () => {
    it('attaches through the only widget, or the one named, and records it', async () => {
      const apps = w.platform.applications;
      const files = w.platform.files;
      const f1 = await files.create(w.account, ann.principal, {
        name: 'invoice.pdf',
        content: Buffer.from('%PDF-1.4'),
      });
      const f2 = await files.create(w.account, ann.principal, {
        name: 'photo.txt',
        content: Buffer.from('x'),
      });
      const one = await apps.create(w.account, ann.actor, { mode: 'LIVE', uploadWidgets: ['upload'] });
      const attached = await apps.attach(w.account, ann.principal, ann.actor, one.id, [f1.id, f1.id]);
      expect(attached).toEqual([
        { instanceId: one.id, file: f1, widgetId: 'upload', attachedAt: NOW, attachedBy: w.ids.ann },
      ]);

      const two = await apps.create(w.account, ann.actor, {
        mode: 'LIVE',
        uploadWidgets: ['invoice', 'photos'],
      });
      await rejects(
        apps.attach(w.account, ann.principal, ann.actor, two.id, [f1.id]),
        'invalid',
        'the instance has 2 upload widgets (invoice, photos): the widget id is needed',
      );
      await rejects(
        apps.attach(w.account, ann.principal, ann.actor, two.id, [f1.id], 'video'),
        'invalid',
        'the instance has no upload widget "video": invoice, photos',
      );
      expect(
        (await apps.attach(w.account, ann.principal, ann.actor, two.id, [f1.id, f2.id], 'photos')).map(
          (a) => a.widgetId,
        ),
      ).toEqual(['photos', 'photos']);
      const none = await apps.create(w.account, ann.actor, { mode: 'LIVE' });
      expect(
        (await apps.attach(w.account, ann.principal, ann.actor, none.id, [f2.id]))[0]!.widgetId,
      ).toBeNull();

      const history = await apps.history(w.account, { instanceId: two.id });
      expect(history.map((h) => [h.action, h.changes])).toEqual([
        ['create', {}],
        ['attach', { files: { old: [], new: [f1.id, f2.id].sort() } }],
      ]);
    });

    it('needs READ on a file to attach or detach it, and lists only readable attachments', async () => {
      const apps = w.platform.applications;
      const files = w.platform.files;
      const mine = await files.create(w.account, ann.principal, {
        name: 'mine.txt',
        content: Buffer.from('x'),
      });
      const shared = await files.create(w.account, ann.principal, {
        name: 'shared.txt',
        content: Buffer.from('x'),
        visibility: 'PUBLIC',
      });
      const i = await apps.create(w.account, ann.actor, { mode: 'LIVE' });
      await rejects(
        apps.attach(w.account, carl.principal, carl.actor, i.id, [shared.id, mine.id]),
        'not-allowed',
        `Access denied: no READ right on file ${mine.id}.`,
      );
      expect(await apps.attachments(w.account, ann.principal, i.id)).toEqual([]);
      await apps.attach(w.account, ann.principal, ann.actor, i.id, [mine.id, shared.id]);
      expect((await apps.attachments(w.account, carl.principal, i.id)).map((a) => a.file.id)).toEqual([
        shared.id,
      ]);
      expect((await apps.attachments(w.account, ann.principal, i.id)).map((a) => a.file.id).sort()).toEqual(
        [mine.id, shared.id].sort(),
      );
      await rejects(
        apps.detach(w.account, carl.principal, carl.actor, i.id, [mine.id]),
        'not-allowed',
        `Access denied: no READ right on file ${mine.id}.`,
      );
      const detached = await apps.detach(w.account, carl.principal, carl.actor, i.id, [
        shared.id,
        'not-attached',
      ]);
      expect(detached.map((a) => [a.file.id, a.widgetId])).toEqual([[shared.id, null]]);
      expect((await apps.history(w.account, { instanceId: i.id })).map((h) => [h.action, h.login])).toEqual([
        ['create', 'ann'],
        ['attach', 'ann'],
        ['detach', 'carl'],
      ]);
      await files.delete(w.account, ann.principal, mine.id);
      expect(await apps.attachments(w.account, ann.principal, i.id)).toEqual([]);
      await rejects(
        apps.attachments(w.account, ann.principal, 'nope'),
        'not-found',
        'Application instance nope not found.',
      );
    });
  });
});
