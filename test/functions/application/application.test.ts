import { beforeAll, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../../src/functions/registry.js';
import { describeEachEngine } from '../../support/engines.js';
import { buildWorld, call, errorOf, NOW, type World } from '../../platform/world.js';
import { as, createText } from '../file/support.js';

describeEachEngine('Application functions', (engine) => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
  });
  const newInstance = (fields: { uploadWidgets?: string[]; requestId?: string; stepId?: string } = {}) =>
    w.platform.applications.create(
      w.account,
      { userId: w.ids.ann, login: 'ann' },
      { mode: 'LIVE', title: 'Orders', ...fields },
    );

  it('the group is spec 4.1: six functions, i18n included', () => {
    const names = defaultRegistry()
      .list()
      .filter((f) => f.group === 'Application')
      .map((f) => f.name)
      .sort();
    expect(names).toEqual([
      'attach_file',
      'detach_file',
      'get_history',
      'get_instance_info',
      'i18n',
      'list_attached_file',
    ]);
    expect(defaultRegistry().get('attach_file')!.flags).toEqual({ manualTaskInputOnly: true });
  });

  describe('attach_file', () => {
    it('attaches the files of an upload widget variable to the manual task’s instance', async () => {
      const instance = await newInstance({ uploadWidgets: ['invoice'] });
      const ann = await as(w, 'ann', { surface: 'manual-task-input', applicationInstanceId: instance.id });
      const a = await createText(ann, 'a.txt', 'x');
      const b = await createText(ann, 'b.txt', 'yy');
      const result = (await call(ann, 'attach_file', JSON.stringify([a, b]))) as Array<
        Record<string, unknown>
      >;
      expect(result.map((r) => r.id).sort()).toEqual([a, b].sort());
      expect(result.find((r) => r.id === a)).toEqual({
        id: a,
        name: 'a.txt',
        content_type: 'text/plain',
        charset: 'UTF-8',
        size: 1,
        created: NOW,
        updated: NOW,
        owner: w.ids.ann,
        visibility: 'PRIVATE',
        metadata: {},
        instance_id: instance.id,
        widget_id: 'invoice',
        attached: NOW,
        attached_by: w.ids.ann,
      });
      expect(((await call(ann, 'attach_file', [a], 'invoice')) as unknown[]).length).toBe(1);
      expect(((await call(ann, 'list_attached_file', instance.id)) as unknown[]).length).toBe(2);
    });

    it('needs the widget id when the interface has several upload widgets', async () => {
      const instance = await newInstance({ uploadWidgets: ['invoice', 'photos'] });
      const ann = await as(w, 'ann', { surface: 'manual-task-input', applicationInstanceId: instance.id });
      const a = await createText(ann, 'a.txt', 'x');
      expect(await errorOf(ann, 'attach_file', a)).toBe(
        'attach_file: the instance has 2 upload widgets (invoice, photos): the widget id is needed',
      );
      expect(
        ((await call(ann, 'attach_file', a, 'photos')) as Array<{ widget_id: string }>)[0]!.widget_id,
      ).toBe('photos');
    });

    it('works only in the input variables of a manual task that has an instance', async () => {
      const ann = await as(w, 'ann');
      const a = await createText(ann, 'a.txt', 'x');
      for (const surface of ['process-task', 'web-interface', 'composite-api', 'eval'] as const) {
        const ctx = await as(w, 'ann', { surface });
        expect(await errorOf(ctx, 'attach_file', a)).toBe(
          surface === 'web-interface'
            ? 'function attach_file is not available in a web interface'
            : 'function attach_file is only available in the input variables of a manual task',
        );
      }
      const noInstance = await as(w, 'ann', { surface: 'manual-task-input' });
      expect(await errorOf(noInstance, 'attach_file', a)).toBe(
        'attach_file: the manual task has no application instance to attach files to',
      );
      const gone = await as(w, 'ann', { surface: 'manual-task-input', applicationInstanceId: 'gone' });
      expect(await errorOf(gone, 'attach_file', a)).toBe('attach_file: Application instance gone not found.');
      const instance = await newInstance();
      const carl = await as(w, 'carl', { surface: 'manual-task-input', applicationInstanceId: instance.id });
      expect(await errorOf(carl, 'attach_file', a)).toBe(
        `attach_file: Access denied: no READ right on file ${a}.`,
      );
      expect(await errorOf(carl, 'attach_file', '[]')).toBe(
        'attach_file: argument 1 (file_variable) names no file',
      );
    });
  });

  describe('detach_file and list_attached_file', () => {
    it('detach the given files and list the rest', async () => {
      const instance = await newInstance({ uploadWidgets: ['docs'] });
      const ann = await as(w, 'ann', { surface: 'manual-task-input', applicationInstanceId: instance.id });
      const [a, b, c] = [
        await createText(ann, 'a', '1'),
        await createText(ann, 'b', '2'),
        await createText(ann, 'c', '3'),
      ];
      await call(ann, 'attach_file', [a, b, c]);
      const other = await as(w, 'ann');
      const detached = (await call(
        other,
        'detach_file',
        `["${a}", "${c}", "not-there"]`,
        instance.id,
      )) as Array<Record<string, unknown>>;
      expect(detached.map((d) => d.id).sort()).toEqual([a, c].sort());
      expect(detached[0]).toMatchObject({
        instance_id: instance.id,
        widget_id: 'docs',
        attached_by: w.ids.ann,
      });
      expect(await call(other, 'detach_file', a, instance.id)).toEqual([]);
      expect(
        ((await call(other, 'list_attached_file', instance.id)) as Array<{ id: string }>).map((d) => d.id),
      ).toEqual([b]);
      const carl = await as(w, 'carl');
      expect(await call(carl, 'list_attached_file', instance.id)).toEqual([]);
      expect(await errorOf(carl, 'detach_file', b, instance.id)).toBe(
        `detach_file: Access denied: no READ right on file ${b}.`,
      );
      expect(await errorOf(other, 'detach_file', b, 'nope')).toBe(
        'detach_file: Application instance nope not found.',
      );
      expect(await errorOf(other, 'detach_file', b, ' ')).toBe(
        'detach_file: argument 2 (instance_id) is empty: an instance id is expected',
      );
      expect(await errorOf(other, 'list_attached_file', 'nope')).toBe(
        'list_attached_file: Application instance nope not found.',
      );
    });
  });

  describe('get_instance_info and get_history', () => {
    it('describe an instance (applimetadata)', async () => {
      const instance = await w.platform.applications.create(
        w.account,
        { userId: w.ids.carl, login: 'carl' },
        {
          mode: 'ACCEPTANCE',
          title: 'Approvals',
          projectId: w.ids.project,
          webInterfaceId: w.ids.restricted,
          requestId: w.request,
          stepId: '2',
          data: { amount: 12 },
          uploadWidgets: ['scan'],
        },
      );
      const ann = await as(w, 'ann');
      expect(await call(ann, 'get_instance_info', instance.id)).toEqual({
        id: instance.id,
        title: 'Approvals',
        project_id: w.ids.project,
        web_interface_id: w.ids.restricted,
        request_id: w.request,
        step: '2',
        mode: 'ACCEPTANCE',
        status: 'OPEN',
        created: NOW,
        created_by: w.ids.carl,
        updated: NOW,
        updated_by: w.ids.carl,
        upload_widgets: ['scan'],
        data: { amount: 12 },
      });
      expect(await errorOf(ann, 'get_instance_info', 'nope')).toBe(
        'get_instance_info: Application instance nope not found.',
      );
    });

    it('gives the history of the current request, else of the current instance', async () => {
      const other = await buildWorld(engine.store);
      const apps = other.platform.applications;
      const first = await apps.create(
        other.account,
        { userId: other.ids.ann, login: 'ann' },
        {
          mode: 'LIVE',
          requestId: other.request,
          stepId: '1',
          data: { a: 1 },
        },
      );
      const second = await apps.create(
        other.account,
        { userId: other.ids.carl, login: 'carl' },
        {
          mode: 'LIVE',
          requestId: other.request,
          stepId: '2',
        },
      );
      await apps.update(
        other.account,
        { userId: other.ids.carl, login: 'carl' },
        second.id,
        { data: { ok: true } },
        'submit',
      );
      const inRequest = await as(other, 'dora', { requestId: other.request });
      expect(await call(inRequest, 'get_history')).toEqual([
        {
          date: NOW,
          user: { id: other.ids.ann, login: 'ann' },
          step: '1',
          action: 'create',
          instance_id: first.id,
          changes: { a: { old: null, new: 1 } },
        },
        {
          date: NOW,
          user: { id: other.ids.carl, login: 'carl' },
          step: '2',
          action: 'create',
          instance_id: second.id,
          changes: {},
        },
        {
          date: NOW,
          user: { id: other.ids.carl, login: 'carl' },
          step: '2',
          action: 'submit',
          instance_id: second.id,
          changes: { ok: { old: null, new: true } },
        },
      ]);
      const inInstance = await as(other, 'dora', { applicationInstanceId: first.id });
      expect(((await call(inInstance, 'get_history')) as unknown[]).length).toBe(1);
      const nowhere = await as(other, 'dora');
      expect(await errorOf(nowhere, 'get_history')).toBe(
        'get_history: there is no current request or application instance',
      );
    });
  });
});
