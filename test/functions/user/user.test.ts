import { beforeAll, describe, expect, it } from 'vitest';
import { internalParameters } from '../../../src/functions/request/index.js';
import { evaluate } from '../../../src/hosts/evaluate.js';
import { StringBoolean } from '../../../src/template/index.js';
import { describeEachEngine } from '../../support/engines.js';
import { buildWorld, call, contextIn, errorOf, type World } from '../../platform/world.js';

describeEachEngine('User functions', (engine) => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
  });
  const live = (user?: string) => contextIn(w, { user, mode: 'LIVE', project: w.ids.project });
  const url = (id: number, query = '') =>
    `https://flow.example.com/live/${w.account}/webinterface/${id}${query}`;

  describe('get_applications', () => {
    it('lists the web interfaces of LIVE versions a user may launch, by title', async () => {
      const ctx = await live('ann');
      expect(await call(ctx, 'get_applications')).toEqual([
        {
          id: w.ids.orders,
          title: 'Orders',
          url: url(w.ids.orders),
          description: 'Enter an order',
          thumb: 'https://flow.example.com/thumbs/orders.png',
        },
        { id: w.ids.reports, title: 'Reports', url: url(w.ids.reports), description: '', thumb: '' },
      ]);
      // Approvals is restricted to the Managers lane, which dora is in.
      const titles = (await call(ctx, 'get_applications', 'dora')) as Array<{ title: string }>;
      expect(titles.map((a) => a.title)).toEqual(['Approvals', 'Orders', 'Reports']);
    });

    it('filters by context and mode', async () => {
      const ctx = await live('ann');
      const mobile = (await call(ctx, 'get_applications', 'ann', 'MOBILE')) as Array<{
        title: string;
        url: string;
      }>;
      expect(mobile.map((a) => [a.title, a.url])).toEqual([
        ['Mobile', url(w.ids.mobileOnly, '?P_context=mobile')],
        ['Orders', url(w.ids.orders, '?P_context=mobile')],
      ]);
      const acceptance = (await call(ctx, 'get_applications', 'ann', 'web', 'ACCEPTANCE')) as Array<{
        title: string;
        url: string;
      }>;
      expect(acceptance.map((a) => [a.title, a.url])).toEqual([
        ['Orders', url(w.ids.orders, '?P_mode=ACCEPTANCE')],
        ['Preview', url(w.ids.preview, '?P_mode=ACCEPTANCE')],
        ['Reports', url(w.ids.reports, '?P_mode=ACCEPTANCE')],
      ]);
      expect(await call(ctx, 'get_applications', 'ann', 'web', 'TEST')).toEqual([]);
      expect(await call(await contextIn(w, { user: 'ann', mode: 'TEST' }), 'get_applications')).toEqual([]);
      // From ACCEPTANCE, the ACCEPTANCE lane configuration decides: dora is in no ACCEPTANCE lane granting Approvals.
      const fromAcceptance = await contextIn(w, { user: 'dora', mode: 'ACCEPTANCE' });
      const seen = (await call(fromAcceptance, 'get_applications')) as Array<{ title: string }>;
      expect(seen.map((a) => a.title)).toEqual(['Orders', 'Preview', 'Reports']);
    });

    it('groups by tag, untagged ones under NO_TAG', async () => {
      const ctx = await live('dora');
      const grouped = (await call(ctx, 'get_applications', 'dora', 'web', 'LIVE', true)) as Record<
        string,
        Array<{ title: string }>
      >;
      expect(Object.keys(grouped)).toEqual(['NO_TAG', 'sales', 'daily']);
      expect(grouped.NO_TAG!.map((a) => a.title)).toEqual(['Approvals']);
      expect(grouped.sales!.map((a) => a.title)).toEqual(['Orders', 'Reports']);
      expect(grouped.daily!.map((a) => a.title)).toEqual(['Orders']);
    });

    it('reports a bad context, mode or user', async () => {
      const ctx = await live('ann');
      expect(await errorOf(ctx, 'get_applications', 'ann', 'desktop')).toBe(
        'get_applications: argument 2 (context) expected web, mobile or tablet, got the string "desktop"',
      );
      expect(await errorOf(ctx, 'get_applications', 'ann', 'web', 'PROD')).toBe(
        'get_applications: argument 3 (mode) expected LIVE, ACCEPTANCE or TEST, got the string "PROD"',
      );
      expect(await errorOf(ctx, 'get_applications', 'nobody')).toBe('Unable to retrieve user.');
      expect(await errorOf(await live(), 'get_applications')).toBe(
        'get_applications: this function needs a connected user; the script runs anonymously',
      );
    });
  });

  describe('lanes', () => {
    it('get_lanes lists the lanes of a user in the mode’s configuration', async () => {
      const ctx = await live('ann');
      expect(await call(ctx, 'get_lanes')).toEqual([{ id: w.ids.clerks, name: 'Clerks', pool: w.ids.pool }]);
      const carl = (await call(ctx, 'get_lanes', 'carl@acme.example')) as Array<{ name: string }>;
      expect(carl.map((l) => l.name)).toEqual(['Clerks', 'Sales']);
      expect(await call(ctx, 'get_lanes', 'bob')).toEqual([]);
      const acceptance = await contextIn(w, { user: 'dora', mode: 'ACCEPTANCE' });
      expect(await call(acceptance, 'get_lanes')).toEqual([
        { id: w.ids.clerks, name: 'Clerks', pool: w.ids.pool },
      ]);
      const test = await contextIn(w, { user: 'dora', mode: 'TEST' });
      expect(((await call(test, 'get_lanes')) as Array<{ name: string }>).map((l) => l.name)).toEqual([
        'Managers',
      ]);
      expect(await errorOf(ctx, 'get_lanes', 'nobody')).toBe('Unable to retrieve user.');
    });

    it('get_lane_users pages through a lane’s users (LIVE from LIVE and TEST, ACCEPTANCE from ACCEPTANCE)', async () => {
      const ctx = await live('ann');
      expect(await call(ctx, 'get_lane_users', w.ids.pool, w.ids.clerks)).toEqual([
        {
          id: w.ids.ann,
          login: 'ann',
          name: 'Ann Smith',
          email: 'ann@acme.example',
          profile: 'USER',
          status: 'active',
        },
        {
          id: w.ids.carl,
          login: 'carl',
          name: 'Carl Clerk',
          email: 'carl@acme.example',
          profile: 'USER',
          status: 'active',
        },
      ]);
      const page = (await call(ctx, 'get_lane_users', w.ids.pool, w.ids.clerks, 1, 1)) as Array<{
        login: string;
      }>;
      expect(page.map((u) => u.login)).toEqual(['carl']);
      const test = await contextIn(w, { user: 'ann', mode: 'TEST' });
      expect(((await call(test, 'get_lane_users', w.ids.pool, w.ids.clerks)) as unknown[]).length).toBe(2);
      expect(await errorOf(await contextIn(w, {}), 'get_lane_users', w.ids.pool, w.ids.clerks)).toBe(
        'get_lane_users: this function needs a connected user; the script runs anonymously',
      );
      const acceptance = await contextIn(w, { user: 'ann', mode: 'ACCEPTANCE' });
      const users = (await call(acceptance, 'get_lane_users', w.ids.pool, w.ids.clerks)) as Array<{
        login: string;
      }>;
      expect(users.map((u) => u.login)).toEqual(['dora']);
      expect(await errorOf(ctx, 'get_lane_users', w.ids.otherPool, w.ids.clerks)).toBe(
        'get_lane_users: Lane not found.',
      );
      expect(await errorOf(ctx, 'get_lane_users', w.ids.pool, 987654321)).toBe(
        'get_lane_users: Lane not found.',
      );
      expect(await errorOf(ctx, 'get_lane_users', w.ids.pool, w.ids.clerks, 0)).toBe(
        'get_lane_users: argument 3 (pageSize) must be from 1 to 1000, got 0',
      );
      expect(await errorOf(ctx, 'get_lane_users', w.ids.pool, w.ids.clerks, 10, -1)).toBe(
        'get_lane_users: argument 4 (first) must not be negative, got -1',
      );
    });

    it('get_lane_job_number counts pending recomputations', async () => {
      const ctx = await live('ann');
      const { lanes, jobs } = w.platform.directory;
      const lane = await lanes.createLane(w.account, w.ids.otherPool, { name: 'French speakers' });
      expect(await call(ctx, 'get_lane_job_number', lane.id)).toBe(0);
      await jobs.setRule(w.account, lane.id, { language: 'fr' });
      expect(await call(ctx, 'get_lane_job_number', lane.id)).toBe(1);
      await jobs.run({ accountId: w.account });
      expect(await call(ctx, 'get_lane_job_number', lane.id)).toBe(0);
      expect(await call(ctx, 'get_lane_users', w.ids.otherPool, lane.id)).toEqual([
        expect.objectContaining({ login: 'ann' }),
      ]);
      expect(await errorOf(ctx, 'get_lane_job_number', 987654321)).toBe(
        'get_lane_job_number: Lane not found.',
      );
    });

    it('has_right and is_user_in_lane follow the mode and are false without a user', async () => {
      const ctx = await live('ann');
      expect(await call(ctx, 'has_right', w.ids.clerks)).toEqual(new StringBoolean(true));
      expect(await call(ctx, 'has_right', w.ids.managers)).toEqual(new StringBoolean(false));
      expect(await call(ctx, 'has_right', 'dora', w.ids.managers)).toEqual(new StringBoolean(true));
      expect(await call(ctx, 'has_right', 'nobody', w.ids.clerks)).toEqual(new StringBoolean(false));
      expect(await call(ctx, 'has_right', 'ann', 987654321)).toEqual(new StringBoolean(false));
      expect(await call(await live(), 'has_right', w.ids.clerks)).toEqual(new StringBoolean(false));
      // Nobody connected: false also for a user named by login, who is in the lane.
      expect(await call(await live(), 'has_right', 'ann', w.ids.clerks)).toEqual(new StringBoolean(false));
      const acceptance = await contextIn(w, { user: 'ann', mode: 'ACCEPTANCE' });
      expect(await call(acceptance, 'has_right', w.ids.clerks)).toEqual(new StringBoolean(false));
      expect(await call(acceptance, 'has_right', 'dora', w.ids.clerks)).toEqual(new StringBoolean(true));

      expect(await call(ctx, 'is_user_in_lane', [w.ids.managers, w.ids.clerks])).toEqual(
        new StringBoolean(true),
      );
      expect(await call(ctx, 'is_user_in_lane', `[${w.ids.managers}]`)).toEqual(new StringBoolean(false));
      expect(await call(ctx, 'is_user_in_lane', [String(w.ids.clerks)])).toEqual(new StringBoolean(true));
      expect(await call(ctx, 'is_user_in_lane', [])).toEqual(new StringBoolean(false));
      expect(await call(await live(), 'is_user_in_lane', [w.ids.clerks])).toEqual(new StringBoolean(false));
      expect(await errorOf(ctx, 'is_user_in_lane', ['x'])).toBe(
        'is_user_in_lane: argument 1 (lanes) element 0 is not a lane id: "x"',
      );
      // Scripts compare it with 'true' as they do has_right's result, and test it with <#if>.
      const source = [
        `<#if is_user_in_lane([${w.ids.clerks}]) == 'true'>clerk</#if>`,
        `<#if is_user_in_lane([${w.ids.managers}]) == 'false'>not a manager</#if>`,
        `<#if is_user_in_lane([${w.ids.clerks}])>in</#if>`,
        `\${is_user_in_lane([${w.ids.managers}])}`,
      ].join(' ');
      expect((await evaluate(source, ctx)).output).toBe('clerk not a manager in false');
    });

    it('get_manager climbs the organisation chart', async () => {
      const ctx = await live('ann');
      expect(await call(ctx, 'get_manager', 'carl')).toBe('ann');
      expect(await call(ctx, 'get_manager', 'carl', 2)).toBe('dora');
      expect(await call(ctx, 'get_manager', 'ann')).toBe('dora');
      expect(await errorOf(ctx, 'get_manager', 'carl', 3)).toBe('No manager found.');
      expect(await errorOf(ctx, 'get_manager', 'dora')).toBe('No manager found.');
      expect(await errorOf(ctx, 'get_manager', 'nobody')).toBe('Unable to retrieve user.');
      expect(await errorOf(ctx, 'get_manager', 'carl', 0)).toBe(
        'get_manager: argument 2 (level) must be 1 or more, got 0',
      );
    });
  });

  describe('preferences and metadata', () => {
    it('reads a user’s data, preferences and metadata', async () => {
      const ctx = await live('ann');
      expect(await call(ctx, 'get_user_data', 'ann')).toEqual({
        id: w.ids.ann,
        login: 'ann',
        name: 'Ann Smith',
        email: 'ann@acme.example',
        profile: 'USER',
        status: 'active',
        i18n: 'fr',
      });
      expect(await call(ctx, 'get_user_data', String(w.ids.carl))).toEqual({
        id: w.ids.carl,
        login: 'carl',
        name: 'Carl Clerk',
        email: 'carl@acme.example',
        profile: 'USER',
        status: 'active',
        i18n: 'en',
      });
      expect(await errorOf(ctx, 'get_user_data', 'nobody')).toBe('Unable to retrieve user.');
      expect(await call(ctx, 'get_preferences')).toEqual({ theme: 'dark' });
      expect(await errorOf(ctx, 'get_preferences', 'carl')).toBe(
        "get_preferences: only an administrator of the account may read or change another user's preferences",
      );
      expect(await call(await live('admin'), 'get_preferences', 'carl')).toEqual({});
      expect(await call(ctx, 'get_user_metadata')).toEqual({ dept: 'sales', phones: ['1', '2'] });
      expect(await call(ctx, 'get_user_metadata', 'dora')).toEqual({});
      expect(await errorOf(await live(), 'get_preferences')).toBe(
        'get_preferences: this function needs a connected user; the script runs anonymously',
      );
      expect(await errorOf(ctx, 'get_user_metadata', 'nobody')).toBe('Unable to retrieve user.');
    });

    it('save_preferences and save_user_metadata replace the objects and return the login', async () => {
      const ctx = await live('carl');
      expect(await call(ctx, 'save_preferences', { lang: 'en', n: 1 })).toBe('carl');
      expect(await call(ctx, 'get_preferences')).toEqual({ lang: 'en', n: 1 });
      expect(await call(ctx, 'save_preferences', '{"lang": "fr"}')).toBe('carl');
      expect(await call(ctx, 'get_preferences')).toEqual({ lang: 'fr' });
      // Metadata feeds lane rules: only administrators change it, also their own.
      expect(await errorOf(ctx, 'save_user_metadata', { level: 2 })).toBe(
        'save_user_metadata: only an administrator of the account may call this function',
      );
      const admin = await live('admin');
      expect(await call(admin, 'save_user_metadata', 'carl', { level: 2 })).toBe('carl');
      expect(await call(ctx, 'get_user_metadata')).toEqual({ level: 2 });
      expect(await call(admin, 'save_user_metadata', 'dora', '{"title": "Director"}')).toBe('dora');
      expect(await call(ctx, 'get_user_metadata', 'dora')).toEqual({ title: 'Director' });
      expect(await errorOf(admin, 'save_user_metadata', 'nobody', {})).toBe('Unable to retrieve user.');
      expect(await errorOf(ctx, 'save_preferences', '[1]')).toMatch(
        /^save_preferences: argument 1 \(prefs\) expected a hash/,
      );
      expect(await errorOf(ctx, 'save_preferences', JSON.parse('{"__proto__": {"x": 1}}'))).toBe(
        'save_preferences: preferences may not have a key named __proto__',
      );
    });

    it('P_change_metadata and P_change_preferences set a value at a path', async () => {
      const ctx = await live('admin');
      const u = await w.platform.directory.users.create(w.account, {
        login: 'pathy',
        metadata: { a: { list: [1, 2] }, s: 'text' },
        preferences: { theme: 'dark' },
      });
      expect(await call(ctx, 'P_change_metadata', 'pathy', 'a.list.1', 5)).toEqual({
        a: { list: [1, 5] },
        s: 'text',
      });
      expect(await call(ctx, 'P_change_metadata', String(u.id), 'a.list.2', '{"k": [true]}')).toEqual({
        a: { list: [1, 5, { k: [true] }] },
        s: 'text',
      });
      expect(await call(ctx, 'P_change_metadata', 'pathy', 'a.list.2.k.0', 'plain words')).toEqual({
        a: { list: [1, 5, { k: ['plain words'] }] },
        s: 'text',
      });
      expect(await call(ctx, 'P_change_metadata', 'pathy', 'new.deep', { x: [1] })).toMatchObject({
        new: { deep: { x: [1] } },
      });
      expect(await call(ctx, 'P_change_preferences', 'pathy', 'theme', 'light')).toEqual({ theme: 'light' });
      expect(await call(ctx, 'P_change_preferences', 'pathy', 'sizes.0', '12')).toEqual({
        theme: 'light',
        sizes: [12],
      });
      expect(await call(ctx, 'get_preferences', 'pathy')).toEqual({ theme: 'light', sizes: [12] });

      expect(await errorOf(ctx, 'P_change_metadata', 'pathy', 's.x', 1)).toBe('CastClassException');
      expect(await errorOf(ctx, 'P_change_metadata', 'pathy', 'a.list.x', 1)).toBe('CastClassException');
      expect(await errorOf(ctx, 'P_change_metadata', 'pathy', '', 5)).toBe('CastClassException');
      expect(await errorOf(ctx, 'P_change_metadata', 'pathy', 'a', '')).toBe('Expected value');
      expect(await errorOf(ctx, 'P_change_metadata', 'pathy', 'a')).toBe('Expected value');
      expect(await errorOf(ctx, 'P_change_metadata', 'pathy', 'a', '{"x": ')).toBe('Malformed Object');
      expect(await errorOf(ctx, 'P_change_preferences', 'pathy', 'a..b', 1)).toBe('Malformed Object');
      expect(await errorOf(ctx, 'P_change_preferences', 'pathy', 'constructor.x', 1)).toBe(
        'P_change_preferences: path segment constructor is not allowed',
      );
      expect(await errorOf(ctx, 'P_change_preferences', 'nobody', 'a', 1)).toBe('Unable to retrieve user.');
    });
  });

  describe('impersonate and unblock_user', () => {
    it('lets an account admin act as another user', async () => {
      const ctx = await live('admin');
      expect(await call(ctx, 'impersonate', 'ann@acme.example')).toBe('ann');
      expect(ctx.user).toEqual({ id: w.ids.ann, login: 'ann', isAdmin: false });
      expect(await call(ctx, 'get_preferences')).toEqual({ theme: 'dark' });
      expect((await internalParameters(ctx)).get('P_user')).toMatchObject({
        login: 'ann',
        name: 'Ann Smith',
      });
      // ann is no admin: impersonating again is refused.
      expect(await errorOf(ctx, 'impersonate', 'carl')).toBe('Impersonification is not allowed for user.');
    });

    it('refuses non-admins, blocked and unknown users', async () => {
      expect(await errorOf(await live('ann'), 'impersonate', 'carl')).toBe(
        'Impersonification is not allowed for user.',
      );
      expect(await errorOf(await live(), 'impersonate', 'carl')).toBe(
        'impersonate: this function needs a connected user; the script runs anonymously',
      );
      const admin = await live('admin');
      expect(await errorOf(admin, 'impersonate', 'nobody')).toBe('Unable to retrieve user.');
      const blocked = await w.platform.directory.users.create(w.account, {
        login: 'frozen',
        status: 'blocked',
      });
      expect(await errorOf(admin, 'impersonate', blocked.login)).toBe(
        'Impersonification is not allowed for user.',
      );
      expect(admin.user?.login).toBe('admin');
    });

    it('unblock_user makes a blocked user active', async () => {
      const ctx = await live('admin');
      const user = await w.platform.directory.users.create(w.account, {
        login: 'blocked-one',
        status: 'blocked',
      });
      expect(await call(ctx, 'unblock_user', 'blocked-one')).toBe('blocked-one');
      expect((await w.platform.directory.users.require(w.account, user.id)).status).toBe('active');
      expect(await call(ctx, 'unblock_user', 'blocked-one')).toBe('blocked-one');
      expect(await errorOf(ctx, 'unblock_user', 'nobody')).toBe('Unable to retrieve user.');
    });
  });

  it('offers only the web-interface functions of spec 2.1 in a web interface', async () => {
    const ctx = await contextIn(w, { user: 'ann', mode: 'LIVE', surface: 'web-interface' });
    expect(((await call(ctx, 'get_applications')) as unknown[]).length).toBe(2);
    expect(await call(ctx, 'get_lanes')).toContainEqual({
      id: w.ids.clerks,
      name: 'Clerks',
      pool: w.ids.pool,
    });
    expect(await errorOf(ctx, 'get_preferences')).toBe(
      'function get_preferences is not available in a web interface',
    );
  });

  it('keeps accounts apart', async () => {
    const other = await buildWorld(engine.store);
    const ctx = await contextIn(other, { user: 'ann', mode: 'LIVE' });
    expect(await call(ctx, 'has_right', w.ids.clerks)).toEqual(new StringBoolean(false));
    expect(await errorOf(ctx, 'get_lane_users', w.ids.pool, w.ids.clerks)).toBe(
      'get_lane_users: Lane not found.',
    );
    expect(await errorOf(ctx, 'get_user_data', String(w.ids.ann))).toBe('Unable to retrieve user.');
    expect(await errorOf(ctx, 'P_add_user_to_lane', w.ids.clerks, 'ann')).toBe(
      'P_add_user_to_lane: Lane not found.',
    );
  });
});
