import { beforeAll, describe, expect, it } from 'vitest';
import { contextFor, internalParameterValues } from '../../../src/functions/request/index.js';
import { PlatformError } from '../../../src/platform/index.js';
import { describeEachEngine } from '../../support/engines.js';
import { buildWorld, call, contextIn, errorOf, NOW, type World } from '../../platform/world.js';

describeEachEngine('Request functions', (engine) => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
  });
  /** The world's request as get_request_info (without data) and P_request describe it. */
  const requestDescriptor = () => ({
    id: w.request,
    project: w.ids.project,
    version: '1.0',
    mode: 'LIVE',
    status: 101,
    initiator: { id: w.ids.carl, login: 'carl', name: 'Carl Clerk' },
    parent: null,
    created: NOW,
    updated: NOW,
    P_locks: [],
    P_message: '',
  });
  const inProject = (user?: string, mode: 'LIVE' | 'ACCEPTANCE' | 'TEST' = 'LIVE') =>
    contextIn(w, { user, mode, project: w.ids.project });

  it('get_access_url gives the service URL with or without the protocol', async () => {
    const ctx = await inProject('ann');
    expect(await call(ctx, 'get_access_url', true)).toBe('https://flow.example.com/');
    expect(await call(ctx, 'get_access_url', 'false')).toBe('flow.example.com/');
    expect(await errorOf(ctx, 'get_access_url', 'maybe')).toBe(
      'get_access_url: argument 1 (includeProtocol) expected a boolean (true or false), got the string "maybe"',
    );
  });

  describe('custom lists', () => {
    it('reads and replaces a list', async () => {
      const ctx = await inProject('admin');
      expect(await call(ctx, 'get_custom_list', 'countries')).toEqual([
        { label: 'France', value: 'FR' },
        { label: 'Japan', value: 'JP' },
      ]);
      const next = [{ label: 'Peru', value: 'PE' }];
      expect(await call(ctx, 'save_custom_list', 'countries', next)).toEqual(next);
      expect(await call(ctx, 'save_custom_list', 'countries', '[{"label": "Chile", "value": "CL"}]')).toEqual(
        [{ label: 'Chile', value: 'CL' }],
      );
      expect(await call(ctx, 'get_custom_list', 'countries')).toEqual([{ label: 'Chile', value: 'CL' }]);
    });

    it('reports an unknown list, also one of another account', async () => {
      const ctx = await inProject('ann');
      expect(await errorOf(ctx, 'get_custom_list', 'nope')).toBe('Custom list not found.');
      expect(await errorOf(ctx, 'save_custom_list', 'nope', [])).toBe('Custom list not found.');
      expect(await errorOf(ctx, 'save_custom_list', 'countries', '{"a": 1}')).toMatch(
        /^save_custom_list: argument 2 \(data\) expected a sequence or the JSON text of an array/,
      );
      const other = await buildWorld(engine.store);
      const elsewhere = await contextIn(other, { user: 'ann' });
      await w.platform.customLists.create(w.account, { id: 'private', name: 'Private', content: [1] });
      expect(await errorOf(elsewhere, 'get_custom_list', 'private')).toBe('Custom list not found.');
    });
  });

  describe('translations', () => {
    it('get_i18n looks in the project dictionary, then the account one, in the user’s language', async () => {
      const ann = await inProject('ann'); // ann's language is fr
      expect(await call(ann, 'get_i18n', 'greeting')).toBe('Bonjour');
      expect(await call(ann, 'get_i18n', 'greeting', 'x', 'en')).toBe('Hello from Orders');
      expect(await call(ann, 'get_i18n', 'greeting', 'x', 'EN_gb')).toBe('Hello from Orders');
      expect(await call(ann, 'get_i18n', 'bye', 'Au revoir')).toBe('Au revoir');
      expect(await call(ann, 'get_i18n', 'bye', 'x', 'en')).toBe('Goodbye');
      expect(await call(ann, 'get_i18n', 'missing')).toBe('missing');
      const noProject = await contextIn(w, { user: 'carl' }); // carl's language is en
      expect(await call(noProject, 'get_i18n', 'greeting')).toBe('Hello');
      const nobody = await contextIn(w, {}); // the account's locale en_US
      expect(await call(nobody, 'get_i18n', 'greeting', 'x')).toBe('Hello');
      expect(await errorOf(ann, 'get_i18n', 'greeting', 'x', '1')).toBe(
        'get_i18n: argument 3 (language) expected a two-letter language code, got "1"',
      );
    });

    it('i18n translates for email activities and web interfaces', async () => {
      const ctx = await contextIn(w, {
        user: 'carl',
        mode: 'LIVE',
        project: w.ids.project,
        surface: 'web-interface',
      });
      expect(await call(ctx, 'i18n', 'greeting', 'Hi')).toBe('Hello from Orders');
      expect(await call(ctx, 'i18n', 'nothing', 'Hi')).toBe('Hi');
      expect(await errorOf(ctx, 'i18n', 'greeting')).toBe(
        'i18n: argument 2 (defaultValue) is missing: expected a string',
      );
    });
  });

  it('get_project_metadata reads a project of the account', async () => {
    const ctx = await inProject('ann');
    expect(await call(ctx, 'get_project_metadata')).toEqual({ owner: 'sales', sla: 3 });
    expect(await call(ctx, 'get_project_metadata', w.ids.child)).toEqual({});
    expect(await errorOf(ctx, 'get_project_metadata', 987654321)).toBe('Project not found.');
    expect(await errorOf(await contextIn(w, { user: 'ann' }), 'get_project_metadata')).toBe(
      'Project not found.',
    );
    const other = await buildWorld(engine.store);
    expect(await errorOf(await contextIn(other, {}), 'get_project_metadata', w.ids.project)).toBe(
      'Project not found.',
    );
  });

  it('get_request_info describes a request of the account', async () => {
    const ctx = await contextIn(w, { user: 'ann', request: w.request });
    const expected = { ...requestDescriptor(), data: { order: 42 } };
    expect(await call(ctx, 'get_request_info')).toEqual(expected);
    expect(await call(await contextIn(w, { user: 'admin' }), 'get_request_info', w.request)).toEqual(
      expected,
    );
    expect(await errorOf(await contextIn(w, { user: 'ann' }), 'get_request_info', w.request)).toBe(
      "get_request_info: only an administrator of the account or the request's initiator may read another request",
    );
    expect(await errorOf(await contextIn(w, {}), 'get_request_info', w.request)).toBe(
      "get_request_info: only an administrator of the account or the request's initiator may read another request",
    );
    expect(await errorOf(ctx, 'get_request_info', 'nope')).toBe('Request not found.');
    expect(await errorOf(await contextIn(w, {}), 'get_request_info')).toBe('Request not found.');
    const other = await buildWorld(engine.store);
    expect(await errorOf(await contextIn(other, { user: 'admin' }), 'get_request_info', w.request)).toBe(
      'Request not found.',
    );
  });

  it('next_value counts from 1, per account and name', async () => {
    const ctx = await inProject('ann');
    expect(await call(ctx, 'next_value', 'invoice')).toBe(1);
    expect(await call(ctx, 'next_value', 'invoice')).toBe(2);
    expect(await call(await contextIn(w, { mode: 'TEST' }), 'next_value', 'invoice')).toBe(3);
    expect(await call(ctx, 'next_value', 'order')).toBe(1);
    const other = await buildWorld(engine.store);
    expect(await call(await contextIn(other, {}), 'next_value', 'invoice')).toBe(1);
    const values = await Promise.all(Array.from({ length: 50 }, () => call(ctx, 'next_value', 'burst')));
    expect([...(values as number[])].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    expect(await errorOf(ctx, 'next_value', '')).toBe(
      'next_value: argument 1 (name) must be 1 to 255 characters',
    );
  });

  it('P_add_user_to_lane and P_remove_user_from_lane change the mode’s membership of a runtime lane', async () => {
    const ctx = await inProject('admin');
    const lane = w.ids.runtimeLane;
    expect(await call(ctx, 'P_add_user_to_lane', lane, 'carl')).toEqual([w.ids.carl]);
    expect(await call(ctx, 'P_add_user_to_lane', lane, w.ids.ann)).toEqual(
      [w.ids.ann, w.ids.carl].sort((a, b) => a - b),
    );
    expect(await call(ctx, 'P_add_user_to_lane', String(lane), String(w.ids.ann))).toEqual(
      [w.ids.ann, w.ids.carl].sort((a, b) => a - b),
    );
    expect(await call(ctx, 'P_remove_user_from_lane', lane, 'ann')).toEqual([w.ids.carl]);
    expect(await call(ctx, 'P_remove_user_from_lane', lane, 'ann')).toEqual([w.ids.carl]);
    const acceptance = await contextIn(w, { user: 'admin', mode: 'ACCEPTANCE' });
    expect(await call(acceptance, 'P_add_user_to_lane', lane, 'dora')).toEqual([w.ids.dora]);
    // TEST changes nothing: the LIVE users are returned as they are.
    const test = await inProject('admin', 'TEST');
    expect(await call(test, 'P_add_user_to_lane', lane, 'dora')).toEqual([w.ids.carl]);
    expect(await call(test, 'P_remove_user_from_lane', lane, 'carl')).toEqual([w.ids.carl]);
    expect(await errorOf(ctx, 'P_add_user_to_lane', w.ids.otherLane, 'ann')).toBe(
      `P_add_user_to_lane: Lane ${w.ids.otherLane} is not a runtime lane.`,
    );
    expect(await errorOf(ctx, 'P_remove_user_from_lane', w.ids.clerks, 'ann')).toBe(
      `P_remove_user_from_lane: Lane ${w.ids.clerks} is not a runtime lane.`,
    );
    expect(await call(ctx, 'get_lane_users', w.ids.otherPool, lane)).toEqual([
      expect.objectContaining({ login: 'carl' }),
    ]);
    expect(await errorOf(ctx, 'P_add_user_to_lane', 987654321, 'ann')).toBe(
      'P_add_user_to_lane: Lane not found.',
    );
    expect(await errorOf(ctx, 'P_add_user_to_lane', lane, 'nobody')).toBe('Unable to retrieve user.');
    expect(await errorOf(ctx, 'P_remove_user_from_lane', lane, 'nobody')).toBe('Unable to retrieve user.');
    expect(await errorOf(ctx, 'P_remove_user_from_lane', 987654321, 'ann')).toBe(
      'P_remove_user_from_lane: Lane not found.',
    );
  });

  it('vaults are per project and mode; deleting none gives false', async () => {
    const live = await inProject('admin', 'LIVE');
    const acceptance = await inProject('admin', 'ACCEPTANCE');
    expect(await call(live, 'P_load_project_vault')).toEqual({});
    expect(await call(live, 'P_delete_project_vault')).toBe(false);
    expect(await call(live, 'P_save_project_vault', { apiKey: 'live-key', n: 1 })).toEqual({
      apiKey: 'live-key',
      n: 1,
    });
    expect(await call(acceptance, 'P_save_project_vault', '{"apiKey": "acc-key"}')).toEqual({
      apiKey: 'acc-key',
    });
    expect(await call(live, 'P_load_project_vault')).toEqual({ apiKey: 'live-key', n: 1 });
    expect(await call(live, 'P_save_project_vault', { apiKey: 'rotated' })).toEqual({ apiKey: 'rotated' });
    expect(await call(live, 'P_load_project_vault')).toEqual({ apiKey: 'rotated' });
    expect(await call(acceptance, 'P_load_project_vault')).toEqual({ apiKey: 'acc-key' });
    expect(await call(await inProject('admin', 'TEST'), 'P_load_project_vault')).toEqual({});
    expect(await call(live, 'P_delete_project_vault')).toBe(true);
    expect(await call(live, 'P_delete_project_vault')).toBe(false);
    expect(await call(live, 'P_load_project_vault')).toEqual({});
    const noProject = await contextIn(w, { user: 'admin' });
    expect(await errorOf(noProject, 'P_load_project_vault')).toBe('Project not found.');
    expect(await errorOf(noProject, 'P_save_project_vault', {})).toBe('Project not found.');
    expect(await errorOf(noProject, 'P_delete_project_vault')).toBe('Project not found.');
  });

  it('OAuth2 tokens are per service and mode and need an access_token', async () => {
    const live = await inProject('ann', 'LIVE');
    expect(await call(live, 'P_get_oauth2_token', 'drive')).toEqual({});
    const token = { access_token: 'at-1', refresh_token: 'rt-1', expires_in: 3600, scope: 'files' };
    expect(await call(live, 'P_save_oauth2_token', 'drive', token)).toEqual(token);
    expect(await call(live, 'P_get_oauth2_token', 'drive')).toEqual(token);
    expect(await call(await inProject('ann', 'TEST'), 'P_get_oauth2_token', 'drive')).toEqual({});
    expect(await call(live, 'P_save_oauth2_token', 'drive', '{"access_token": "at-2"}')).toEqual({
      access_token: 'at-2',
    });
    expect(await call(live, 'P_get_oauth2_token', 'drive')).toEqual({ access_token: 'at-2' });
    expect(await errorOf(live, 'P_save_oauth2_token', 'drive', { refresh_token: 'r' })).toBe(
      'P_save_oauth2_token: argument 2 (token) must contain access_token (a non-empty string)',
    );
    expect(await errorOf(live, 'P_save_oauth2_token', 'drive', { access_token: '' })).toBe(
      'P_save_oauth2_token: argument 2 (token) must contain access_token (a non-empty string)',
    );
    expect(await errorOf(live, 'P_save_oauth2_token', ' ', { access_token: 'x' })).toBe(
      'P_save_oauth2_token: argument 1 (service) must be 1 to 255 characters',
    );
  });

  describe('P_log', () => {
    const messages = async (requestId?: string) =>
      (await w.platform.logs.list(w.account, { requestId, limit: 1000 })).map(
        (e) => `${e.level} ${e.message}`,
      );

    it('logs every level in TEST, only SEVERE in LIVE, and sets P_message', async () => {
      const test = await contextIn(w, { user: 'ann', mode: 'TEST' });
      const before = (await messages()).length;
      expect(await call(test, 'P_log', 'plain')).toBe('plain');
      expect(await call(test, 'P_log', 'info', 'informative')).toBe('informative');
      expect((await messages()).slice(0, 2)).toEqual(['INFO informative', 'FINEST plain']);
      expect((await internalParameterValues(test)).P_message).toBe('informative');
      const live = await contextIn(w, { user: 'ann', mode: 'LIVE' });
      expect(await call(live, 'P_log', 'WARNING', 'dropped')).toBe('dropped');
      expect(await call(live, 'P_log', 'dropped too')).toBe('dropped too');
      expect((await internalParameterValues(live)).P_message).toBe('');
      expect(await call(live, 'P_log', 'SEVERE', 'kept')).toBe('kept');
      expect((await internalParameterValues(live)).P_message).toBe('kept');
      const all = await messages();
      expect(all.length).toBe(before + 3);
      expect(all[0]).toBe('SEVERE kept');
      const acceptance = await contextIn(w, { mode: 'ACCEPTANCE' });
      await call(acceptance, 'P_log', 'FINE', 'acceptance logs all');
      expect((await messages())[0]).toBe('FINE acceptance logs all');
    });

    it("follows the resource's P_log attribute instead of the mode", async () => {
      await w.platform.projects.update(w.account, w.ids.child, { logLevel: 'INFO' });
      const before = await messages();
      const live = await contextIn(w, { mode: 'LIVE', project: w.ids.child });
      await call(live, 'P_log', 'FINE', 'below INFO');
      await call(live, 'P_log', 'INFO', 'at INFO');
      const test = await contextIn(w, { mode: 'TEST', project: w.ids.child });
      await call(test, 'P_log', 'CONFIG', 'test below INFO');
      await call(test, 'P_log', 'WARNING', 'test above INFO');
      const silenced = await contextIn(w, { mode: 'TEST', logLevel: 'OFF' });
      await call(silenced, 'P_log', 'SEVERE', 'silenced');
      const verbose = await contextIn(w, { mode: 'LIVE', project: w.ids.child, logLevel: 'FINER' });
      await call(verbose, 'P_log', 'FINER', 'resource says FINER');
      expect(await messages()).toEqual([
        'FINER resource says FINER',
        'WARNING test above INFO',
        'INFO at INFO',
        ...before,
      ]);
    });

    it('truncates messages over 3 KB so that they end with (...)', async () => {
      const ctx = await contextIn(w, { mode: 'TEST' });
      const exact = 'a'.repeat(3072);
      expect(await call(ctx, 'P_log', exact)).toBe(exact);
      const long = 'é'.repeat(2000); // 4000 bytes
      const kept = (await call(ctx, 'P_log', 'SEVERE', long)) as string;
      expect(kept).toBe(`${'é'.repeat(1533)}(...)`);
      expect(Buffer.byteLength(kept)).toBe(3071);
      expect((await messages())[0]).toBe(`SEVERE ${kept}`);
      expect(await call(ctx, 'P_log', 'b'.repeat(3073))).toBe(`${'b'.repeat(3067)}(...)`);
    });

    it('writes P_message on the request and checks the level', async () => {
      const request = await w.platform.requests.create(w.account, { mode: 'TEST', projectId: w.ids.project });
      const ctx = await contextIn(w, { request: request.id });
      await call(ctx, 'P_log', 'CONFIG', 'on the request');
      expect((await w.platform.requests.require(w.account, request.id)).message).toBe('on the request');
      expect(await messages(request.id)).toEqual(['CONFIG on the request']);
      expect(await errorOf(ctx, 'P_log', 'LOUD', 'x')).toBe(
        'P_log: argument 1 (level) expected SEVERE, WARNING, INFO, CONFIG, FINE, FINER or FINEST, got the string "LOUD"',
      );
    });
  });

  describe('R_lock and R_unlock', () => {
    it('holds a lock per account until released, recording P_locks', async () => {
      let now = NOW;
      const a = await contextIn(w, { clock: () => now });
      const b = await contextIn(w, { clock: () => now });
      expect(await call(a, 'R_lock', 'stock')).toBe('stock');
      expect((await internalParameterValues(a)).P_locks).toEqual([{ name: 'stock', start: NOW }]);
      expect(await call(a, 'R_lock', 'stock', 0)).toBe('stock'); // re-entrant for its holder
      expect((await internalParameterValues(a)).P_locks).toEqual([{ name: 'stock', start: NOW }]);
      expect(await errorOf(b, 'R_lock', 'stock', 0)).toBe('Timeout exception');
      const started = performance.now();
      expect(await errorOf(b, 'R_lock', 'stock', 150)).toBe('Timeout exception');
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
      // Another account's lock of the same name is another lock.
      const other = await buildWorld(engine.store);
      expect(await call(await contextIn(other, {}), 'R_lock', 'stock', 0)).toBe('stock');
      now += 5;
      expect(await call(a, 'R_unlock', 'stock')).toBe('stock');
      expect((await internalParameterValues(a)).P_locks).toEqual([
        { name: 'stock', start: NOW, end: NOW + 5 },
      ]);
      expect(await call(b, 'R_lock', 'stock', 0)).toBe('stock');
      // Unlocking what another holds changes nothing.
      expect(await call(a, 'R_unlock', 'stock')).toBe('stock');
      expect(await errorOf(a, 'R_lock', 'stock', 0)).toBe('Timeout exception');
      expect(await call(b, 'R_unlock', 'stock')).toBe('stock');
    });

    it('waits for a lock released meanwhile', async () => {
      const a = await contextIn(w, {});
      const b = await contextIn(w, {});
      await call(a, 'R_lock', 'queue');
      const waiting = call(b, 'R_lock', 'queue', 5000);
      await new Promise((r) => setTimeout(r, 50));
      await call(a, 'R_unlock', 'queue');
      expect(await waiting).toBe('queue');
      await call(b, 'R_unlock', 'queue');
    });

    it('takes over a lease that expired (exec_timeout in seconds)', async () => {
      let now = NOW;
      const a = await contextIn(w, { clock: () => now });
      const b = await contextIn(w, { clock: () => now });
      await call(a, 'R_lock', 'lease', 0, 2);
      now += 1999;
      expect(await errorOf(b, 'R_lock', 'lease', 0)).toBe('Timeout exception');
      now += 1;
      expect(await call(b, 'R_lock', 'lease', 0)).toBe('lease');
      expect((await w.platform.locks.holder(w.account, 'lease'))?.expiresAt).toBe(now + 3_600_000);
      // The first holder's release no longer frees it.
      await call(a, 'R_unlock', 'lease');
      expect(await errorOf(a, 'R_lock', 'lease', 0)).toBe('Timeout exception');
      await call(b, 'R_unlock', 'lease');
    });

    it('belongs to the request across evaluations and persists P_locks on it', async () => {
      const request = await w.platform.requests.create(w.account, { mode: 'LIVE' });
      const first = await contextIn(w, { request: request.id });
      await call(first, 'R_lock', 'batch');
      expect((await w.platform.requests.require(w.account, request.id)).locks).toEqual([
        { name: 'batch', start: NOW },
      ]);
      const later = await contextIn(w, { request: request.id });
      expect((await internalParameterValues(later)).P_locks).toEqual([{ name: 'batch', start: NOW }]);
      expect(await call(later, 'R_lock', 'batch', 0)).toBe('batch');
      expect(await call(later, 'R_unlock', 'batch')).toBe('batch');
      expect((await w.platform.requests.require(w.account, request.id)).locks).toEqual([
        { name: 'batch', start: NOW, end: NOW },
      ]);
      expect(await w.platform.locks.holder(w.account, 'batch')).toBeUndefined();
    });

    it('checks its arguments', async () => {
      const ctx = await contextIn(w, {});
      expect(await errorOf(ctx, 'R_lock', '')).toBe(
        'R_lock: argument 1 (lockname) must be 1 to 255 characters',
      );
      expect(await errorOf(ctx, 'R_lock', 'x', -1)).toBe(
        'R_lock: argument 2 (wait_timeout) must not be negative',
      );
      expect(await errorOf(ctx, 'R_lock', 'x', 0, 0)).toBe(
        'R_lock: argument 3 (exec_timeout) must be positive',
      );
      expect(await errorOf(ctx, 'R_unlock', '')).toBe(
        'R_unlock: argument 1 (lockname) must be 1 to 255 characters',
      );
      expect(await call(ctx, 'R_unlock', 'never-taken')).toBe('never-taken');
      expect((await internalParameterValues(ctx)).P_locks).toEqual([]);
    });

    describe('waiting, measured on a virtual clock', () => {
      // The platform's lock timer: every pause moves the clock on at once (the database is real).
      let now = 0;
      let pauses: number[] = [];
      let onPause: (() => Promise<void>) | undefined;
      let v: World;
      beforeAll(async () => {
        v = await buildWorld(engine.store, {
          lockTimer: {
            now: () => now,
            async sleep(ms) {
              pauses.push(ms);
              now += ms;
              await onPause?.();
            },
          },
        });
      });
      /** R_lock's wait for a lock another evaluation holds: the outcome and the time it waited. */
      async function waitFor(name: string, ...waitTimeout: unknown[]) {
        now = 0;
        pauses = [];
        const ctx = await contextIn(v, {});
        try {
          return { result: await call(ctx, 'R_lock', name, ...waitTimeout), waited: now };
        } catch (e) {
          return { result: (e as Error).message, waited: now };
        }
      }

      it('waits wait_timeout ms, at most 40 s, polling with pauses doubling from 2 to 100 ms', async () => {
        const holder = await contextIn(v, {});
        await call(holder, 'R_lock', 'cap');
        const timeout = (waited: number) => ({ result: 'Timeout exception', waited });
        expect(await waitFor('cap', 1234)).toEqual(timeout(1234));
        expect(await waitFor('cap', 0)).toEqual(timeout(0));
        expect(pauses).toEqual([]);
        const capped = await waitFor('cap', 100_000);
        expect(capped).toEqual(timeout(expect.closeTo(40_000, 6)));
        // Jittered ×0.5–1.5 around 2, 4, 8 … 100 ms; the last pause ends at the deadline.
        const nominal = (i: number) => Math.min(2 * 2 ** i, 100);
        pauses.slice(0, -1).forEach((p, i) => {
          expect(p).toBeGreaterThanOrEqual(nominal(i) * 0.5);
          expect(p).toBeLessThanOrEqual(nominal(i) * 1.5);
        });
        expect(await waitFor('cap', 40_001)).toEqual(timeout(expect.closeTo(40_000, 6)));
        // No wait_timeout: the default is the cap.
        expect(await waitFor('cap')).toEqual(timeout(expect.closeTo(40_000, 6)));
        await call(holder, 'R_unlock', 'cap');
      });

      it('obtains a lock released before 40 s, not one released after', async () => {
        const holder = await contextIn(v, {});
        const releaseAt = (name: string, ms: number) => {
          onPause = async () => {
            if (now < ms) return;
            onPause = undefined;
            await call(holder, 'R_unlock', name);
          };
        };
        try {
          await call(holder, 'R_lock', 'early');
          // Released at the first pause ending at or after 39.8 s: pauses are at most 150 ms, so
          // that is before the last pause (the one cut to end at the deadline, after which a
          // lock freed exactly at 40 s would also be obtained).
          releaseAt('early', 39_800);
          const early = await waitFor('early', 100_000);
          expect(early.result).toBe('early');
          expect(early.waited).toBeGreaterThanOrEqual(39_800);
          expect(early.waited).toBeLessThan(39_950);

          await call(holder, 'R_lock', 'late');
          releaseAt('late', 40_100);
          expect(await waitFor('late', 100_000)).toEqual({
            result: 'Timeout exception',
            waited: expect.closeTo(40_000, 6),
          });
          await call(holder, 'R_unlock', 'late');
        } finally {
          onPause = undefined;
        }
      });
    });
  });

  it('throw raises the message given', async () => {
    const ctx = await contextIn(w, {});
    expect(await errorOf(ctx, 'throw', 'Order 42 is invalid')).toBe('Order 42 is invalid');
    expect(await errorOf(ctx, 'throw')).toBe('Error thrown by the script');
  });

  describe('internal parameters', () => {
    it('describe the account, mode, user, URLs and version', async () => {
      const ctx = await contextIn(w, { user: 'ann', mode: 'LIVE', project: w.ids.project });
      const user = {
        id: w.ids.ann,
        login: 'ann',
        name: 'Ann Smith',
        profile: 'USER',
        extended: { dept: 'sales', phones: ['1', '2'] },
        preferences: { theme: 'dark' },
        delegators: [{ id: w.ids.carl, login: 'carl', name: 'Carl Clerk' }],
      };
      expect(await internalParameterValues(ctx)).toEqual({
        P_customer: w.account,
        P_mode: 'LIVE',
        P_user: user,
        P_urls: {
          domain: 'flow.example.com',
          host: 'flow.example.com',
          live: 'https://flow.example.com',
          portal: 'https://flow.example.com',
        },
        P_version: '1.0',
        P_initiator: user,
        P_locks: [],
        P_message: '',
        P_connected_user: user,
        P_language: 'fr',
      });
      const acceptance = await contextIn(w, { mode: 'ACCEPTANCE', project: w.ids.project });
      expect(await internalParameterValues(acceptance)).toMatchObject({
        P_mode: 'ACCEPTANCE',
        P_version: '1.1',
      });
      expect(await internalParameterValues(acceptance)).not.toHaveProperty('P_user');
      const test = await contextIn(w, { mode: 'TEST', project: w.ids.project });
      expect((await internalParameterValues(test)).P_version).toBe('');
      const pinned = await contextIn(w, {
        mode: 'LIVE',
        project: w.ids.project,
        version: w.ids.acceptanceVersion,
      });
      expect((await internalParameterValues(pinned)).P_version).toBe('1.1');
    });

    it('describe the request and its initiator inside a request', async () => {
      const ctx = await contextIn(w, { user: 'ann', request: w.request });
      expect(ctx).toMatchObject({ mode: 'LIVE', projectId: w.ids.project, requestId: w.request });
      const values = await internalParameterValues(ctx);
      expect(values.P_request).toEqual(requestDescriptor());
      expect(values.P_initiator).toMatchObject({ login: 'carl', delegators: [] });
      expect(values.P_version).toBe('1.0');
    });

    it('refuse an unknown account, user, project or request and a blocked user', async () => {
      const platform = w.platform;
      const fails = (options: Parameters<typeof contextFor>[0], message: string) =>
        expect(contextFor(options)).rejects.toSatisfy(
          (e) => e instanceof PlatformError && e.message === message,
        );
      await fails({ platform, account: 'no-such-account' }, 'Account no-such-account not found.');
      await fails(
        { platform, account: w.account, user: 'nobody' },
        `user nobody not found in account ${w.account}`,
      );
      await fails({ platform, account: w.account, user: 'bob' }, 'user bob is blocked');
      await fails({ platform, account: w.account, project: 987654321 }, 'Project not found.');
      await fails({ platform, account: w.account, request: 'nope' }, 'Request not found.');
      const ctx = await contextFor({ store: engine.store, account: w.account, user: w.ids.ann });
      expect(ctx).toMatchObject({
        accountId: w.account,
        user: { id: w.ids.ann, login: 'ann', isAdmin: false },
      });
      expect(ctx).toMatchObject({ mode: 'TEST', surface: 'eval', locale: 'en_US', timeZone: 'UTC' });
    });
  });
});
