/**
 * Issue 16, "Real scripts run unchanged": constructs real platform scripts use, evaluated through
 * POST /api/v1/eval on a real server (evalHost over the suite's engine).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { call, useServer } from './support.js';

describeEachEngine('server: real scripts', (engine) => {
  const server = useServer(engine, (platform) => ({ hosts: evalHost(platform) }));
  /** ann evaluates in a project she designs (evaluation is a design right); the administrator anywhere. */
  let designed = 0;
  const evaluate = (body: Record<string, unknown>, who: 'admin' | 'user' = 'user') =>
    call(server.url, 'POST', '/api/v1/eval', {
      token: server.acme[who].token,
      body: { mode: 'LIVE', ...(who === 'user' ? { projectId: designed } : {}), ...body },
    });
  const output = async (template: string, data?: Record<string, unknown>) => {
    const r = await evaluate({ template, ...(data ? { data } : {}) });
    expect(r.status).toBe(200);
    expect(r.body.error).toBeUndefined();
    return r.body.output as string;
  };
  let clerks = 0;
  let managers = 0;
  beforeAll(async () => {
    const project = await call(server.url, 'POST', '/api/v1/projects', {
      token: server.acme.admin.token,
      body: { title: 'Scripts' },
    });
    designed = project.body.id as number;
    await server.platform.rights.grantDesign('acme', designed, server.acme.user.id);
    const { lanes } = server.platform.directory;
    const pool = await lanes.createPool('acme', { name: 'Company' });
    clerks = (await lanes.createLane('acme', pool.id, { name: 'Clerks' })).id;
    managers = (await lanes.createLane('acme', pool.id, { name: 'Managers' })).id;
    await lanes.addMember('acme', clerks, 'LIVE', server.acme.user.id);
  });

  describe('has_right: a string and a boolean', () => {
    it("compares with 'true', tests with #if, prints true/false", async () => {
      const template =
        `<div class="displayme_\${has_right('${clerks}')=='true'}">` +
        `<#if has_right(${clerks})>clerk</#if><#if !has_right(${managers})> not a manager</#if>` +
        ` \${has_right(${managers})} \${has_right(${clerks})?string("yes", "no")}` +
        ` \${has_right(${clerks}) == true} \${has_right(${managers}) != 'false'}</div>`;
      expect(await output(template)).toBe(
        '<div class="displayme_true">clerk not a manager false yes true false</div>',
      );
    });

    it('is both types for ?is_string / ?is_boolean, and a boolean in the variables', async () => {
      const r = await evaluate({
        template:
          `<#assign r = has_right("ann", ${clerks})>` +
          '${r?is_string?c} ${r?is_boolean?c} ${r?c} ${r?length} ${r + "!"} ${(r && true)?c}',
      });
      expect(r.body.output).toBe('true true true 4 true! true');
      expect(r.body.variables).toEqual({ r: true });
    });

    it('an empty lane id is false, other text still an error', async () => {
      expect(
        await output(`\${has_right('')} \${has_right('ann', ' ')} \${(has_right('') == 'false')?c}`),
      ).toBe('false false true');
      const bad = await evaluate({ template: "${has_right('clerks')}" });
      expect(bad.body.error.message).toContain(
        'has_right: argument 1 (laneId) expected an integer, got the string "clerks"\n',
      );
    });
  });

  describe('a query written as two JSON objects back to back', () => {
    it("is its first object, as the platform's JSONObject(String) reads it", async () => {
      const template =
        '${create_collection("orders_two", false, false)?c}' +
        '<#assign saved = save_object({"status": "open", "n": 1}, "orders_two")>' +
        '<#assign saved = save_object({"status": "closed", "n": 2}, "orders_two")>' +
        '<#assign q>{"status": "closed"}\n{"n": 1}</#assign>' +
        '<#assign o = load_object(q, "orders_two")> ${o.n} ${list_objects(q, "orders_two")?size}' +
        '<#assign brace>{"status": "x}"} {"n": 1}</#assign> ${count_objects(brace, "orders_two")}' +
        '<#assign quoted>{"status": "a\\"}[", "n": {"$gte": 1}}\t[{"n": 2}]</#assign> ${count_objects(quoted, "orders_two")}';
      expect(await output(template)).toBe('true 2 1 0 0');
      const broken = await evaluate({ template: '${load_object("{\\"a\\": 1", "orders_two")}' });
      expect(broken.body.error.message).toMatch(/^load_object: argument 1 \(where\) is not valid JSON: /);
    });
  });

  describe('user functions as real scripts call them', () => {
    it('get_user_data gives login, status and i18n besides id, name and profile', async () => {
      const r = await evaluate({
        template: '<#assign u = get_user_data("ann")>${u.login} ${u.status} ${u.i18n} ${u.profile}',
      });
      expect(r.body.output).toBe('ann active en USER');
      expect(r.body.variables.u).toEqual({
        id: server.acme.user.id,
        login: 'ann',
        name: 'ann',
        email: 'ann@acme.example',
        profile: 'USER',
        status: 'active',
        i18n: 'en',
      });
    });

    it("get_applications(login, context, isTagged): the platform's boolean third argument", async () => {
      expect(
        await output(
          '${get_applications("ann", "web", true)?is_hash?c} ${get_applications("ann", "web", false)?is_sequence?c} ' +
            '${get_applications("ann", "web", "true")?is_hash?c} ${get_applications("ann", "web", "LIVE")?is_sequence?c}',
        ),
      ).toBe('true true true true');
      const bad = await evaluate({ template: '${get_applications("ann", "web", "SOMETIMES")?size}' });
      expect(bad.body.error.message).toMatch(/^get_applications: argument 3 \(mode\) /);
    });

    it('file_size is R_file_size', async () => {
      const template =
        '<#assign content = "x"?left_pad(3000, "y")><#assign id = create_file("notes.txt", content, {})>' +
        '${file_size(id)} ${R_file_size(id)}';
      expect(await output(template)).toBe('3 3');
    });
  });

  describe('internal parameters real scripts read', () => {
    it('P_language, P_connected_user, P_urls, P_user.preferences and get_access_url', async () => {
      await server.platform.directory.users.update('acme', server.acme.user.id, {
        language: 'fr',
        preferences: { theme: 'dark' },
      });
      const template =
        '<a href="${P_urls.live}/live/${P_customer}/appli/395400?P_mode=${P_mode}&P_language=${P_language}">' +
        '${P_connected_user.login}</a> ${has_right(P_connected_user.login, "' +
        clerks +
        '")} ${P_urls.host} ${P_urls.portal} ${P_user.preferences.theme} ${get_access_url(true)} ${get_access_url(false)}';
      expect(await output(template)).toBe(
        `<a href="http://localhost:8080/live/acme/appli/395400?P_mode=LIVE&P_language=fr">ann</a> true ` +
          'localhost:8080 http://localhost:8080 dark http://localhost:8080/ localhost:8080/',
      );
      const admin = await evaluate({ template: '${P_language} ${P_connected_user.login}' }, 'admin');
      expect(admin.body.output).toBe('en admin');
    });
  });

  describe('variables leave callables out', () => {
    it('a #function, a #macro and an assigned library function are not in variables', async () => {
      const r = await evaluate({
        template:
          '<#function twice x><#return x * 2></#function><#macro hello name>Hello ${name}</#macro>' +
          '<#assign f = has_right><#assign h = {"n": 1, "fn": twice, "list": [twice, 2]}>' +
          '<#list "a1 b2"?matches("[a-z]\\\\d") as m><#assign last = m></#list>' +
          '<@hello "Ann"/> ${twice(21)}',
      });
      expect(r.status).toBe(200);
      expect(r.body.output).toBe('Hello Ann 42');
      expect(r.body.variables).toEqual({ h: { n: 1, list: [null, 2] }, last: 'b2' });
    });
  });
});
