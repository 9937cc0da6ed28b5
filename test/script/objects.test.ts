/**
 * RMPRequest, RMPProject, RMPUser, RMPFile, RMPApplication and RMPData against the template
 * functions, on the world the function tests use, on both engines: a script and a template in the
 * same context give the same results and errors; what one writes, the other reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { internalParameterValues } from '../../src/functions/request/index.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { closeScripts } from '../../src/script/index.js';
import { describeEachEngine } from '../support/engines.js';
import { buildWorld, call, contextIn, type World } from '../platform/world.js';
import { createBinary, sampleWorkbook } from '../functions/file/support.js';
import { errorOf, same, sameError, scriptTag, viaScript, viaTemplate, withoutNullFields } from './support.js';

afterAll(() => closeScripts());

describeEachEngine('RMP objects against the template functions', (engine) => {
  let w: World;
  let ann: ExecutionContext; // LIVE, in the project
  let admin: ExecutionContext;
  const inProject = (user: string | undefined, mode: 'LIVE' | 'ACCEPTANCE' | 'TEST' = 'LIVE') =>
    contextIn(w, { ...(user ? { user } : {}), mode, project: w.ids.project });

  beforeAll(async () => {
    w = await buildWorld(engine.store);
    ann = await inProject('ann');
    admin = await inProject('admin');
  });

  describe('RMPRequest', () => {
    it('reads the request context: getAccessUrl, getRequestInfo, getI18n, log', async () => {
      expect(await same(ann, 'get_access_url(true)', 'RMPRequest.getAccessUrl(true)')).toBe(
        'https://flow.example.com/',
      );
      const inRequest = await contextIn(w, { user: 'carl', request: w.request });
      const info = await same(inRequest, 'get_request_info()', 'RMPRequest.getRequestInfo()');
      expect(info).toMatchObject({ id: w.request, data: { order: 42 } });
      await sameError(ann, 'get_request_info("nope")', 'RMPRequest.getRequestInfo("nope")');
      expect(
        await same(ann, 'get_i18n("greeting", "?", "fr")', 'RMPRequest.getI18n("greeting", "?", "fr")'),
      ).toBe('Bonjour');
      const test = await inProject('ann', 'TEST');
      expect(await same(test, 'P_log("INFO", "hello")', 'RMPRequest.log("INFO", "hello")')).toBe('hello');
    });

    it('nextValue counts like next_value (twin counters)', async () => {
      expect(await same(ann, 'next_value("c_t")', 'RMPRequest.nextValue("c_s")')).toBe(1);
      expect(await same(ann, 'next_value("c_t")', 'RMPRequest.nextValue("c_s")')).toBe(2);
    });

    it('lock returns a boolean: true when obtained, false on the timeout R_lock raises', async () => {
      const holder = await contextIn(w, {});
      expect(await viaTemplate(holder, 'R_lock("stock")')).toBe('stock');
      const other = await contextIn(w, {});
      expect(await errorOf(other, '${R_lock("stock", 0)}')).toBe('Timeout exception');
      expect(await viaScript(other, 'RMPRequest.lock("stock", 0)')).toBe(false);
      expect(await viaScript(other, 'RMPRequest.lock("free", 0)')).toBe(true);
      expect((await internalParameterValues(other)).P_locks).toEqual([
        { name: 'free', start: expect.any(Number) },
      ]);
      expect(await same(other, 'R_unlock("free")', 'RMPRequest.unlock("free")')).toBe('free');
      await sameError(other, 'R_lock("x", -1)', 'RMPRequest.lock("x", -1)');
      await viaTemplate(holder, 'R_unlock("stock")');
      expect(await viaScript(other, 'RMPRequest.lock("stock", 0)')).toBe(true);
    });

    it('addUserToLane / removeUserFromLane return true; the lane changes as with P_add_user_to_lane', async () => {
      const lane = w.ids.runtimeLane;
      expect(await viaScript(admin, `RMPRequest.addUserToLane(${lane}, "carl")`)).toBe(true);
      expect(await viaTemplate(admin, `P_add_user_to_lane(${lane}, "ann")`)).toEqual(
        [w.ids.ann, w.ids.carl].sort((a, b) => a - b),
      );
      expect(
        await same(
          admin,
          `get_lane_users(${w.ids.otherPool}, ${lane})`,
          `RMPUser.getLaneUsers(${w.ids.otherPool}, ${lane})`,
        ),
      ).toHaveLength(2);
      expect(await viaScript(admin, `RMPRequest.removeUserFromLane(${lane}, "ann")`)).toBe(true);
      expect(await viaTemplate(admin, `P_remove_user_from_lane(${lane}, "carl")`)).toEqual([]);
      expect(
        await sameError(
          admin,
          `P_add_user_to_lane(${lane}, "nobody")`,
          `RMPRequest.addUserToLane(${lane}, "nobody")`,
        ),
      ).toBe('Unable to retrieve user.');
    });

    it('OAuth2 tokens: what the script saves the template reads', async () => {
      await viaScript(ann, 'RMPRequest.saveOauth2Token("drive", {access_token: "at-1", expires_in: 60})');
      expect(await viaTemplate(ann, 'P_get_oauth2_token("drive")')).toEqual({
        access_token: 'at-1',
        expires_in: 60,
      });
      await sameError(ann, 'P_save_oauth2_token("drive", {})', 'RMPRequest.saveOauth2Token("drive", {})');
    });

    it('raiseError ends the script with the message given, as throw does', async () => {
      expect(await errorOf(ann, '${throw("Stock too low")}')).toBe('Stock too low');
      expect(await errorOf(ann, scriptTag('\nRMPRequest.raiseError("Stock too low");'))).toBe(
        'Stock too low (script line 2, column 22)',
      );
      expect(
        await viaScript(
          ann,
          '(() => { try { RMPRequest.raiseError("x") } catch (e) { return e.message } })()',
        ),
      ).toBe('x');
    });

    it('file rights: readFileAddUser … give the file rights result of R_read_file_add_user', async () => {
      const t = (await call(ann, 'create_file', 't.txt', 'x', {})) as string;
      const s = (await call(ann, 'create_file', 's.txt', 'x', {})) as string;
      const fromTemplate = (await viaTemplate(ann, `R_read_file_add_user("${t}", "carl")`)) as Record<
        string,
        unknown
      >;
      const fromScript = (await viaScript(ann, `RMPRequest.readFileAddUser("${s}", "carl")`)) as Record<
        string,
        unknown
      >;
      expect(fromScript[s]).toEqual(fromTemplate[t]);
      expect((fromScript[s] as { user: { READ: number[] } }).user.READ).toContain(w.ids.carl);
      const removed = (await viaScript(ann, `RMPRequest.updateFileRemoveUser("${s}", "ann")`)) as Record<
        string,
        { user: unknown }
      >;
      expect(removed[s]!.user).toEqual(
        (
          (await viaTemplate(ann, `R_update_file_remove_user("${t}", "ann")`)) as Record<
            string,
            { user: unknown }
          >
        )[t]!.user,
      );
    });
  });

  describe('RMPProject', () => {
    it('custom lists: getCustomList and saveCustomList, read back by the template', async () => {
      await same(ann, `get_custom_list("${w.list}")`, `RMPProject.getCustomList("${w.list}")`);
      expect(
        await viaScript(admin, `RMPProject.saveCustomList("${w.list}", [{label: "Peru", value: "PE"}])`),
      ).toEqual([{ label: 'Peru', value: 'PE' }]);
      expect(await viaTemplate(ann, `get_custom_list("${w.list}")`)).toEqual([
        { label: 'Peru', value: 'PE' },
      ]);
      expect(await sameError(ann, 'get_custom_list("nope")', 'RMPProject.getCustomList("nope")')).toBe(
        'Custom list not found.',
      );
    });

    it('metadata and vaults', async () => {
      expect(await same(ann, 'get_project_metadata()', 'RMPProject.getProjectMetadata()')).toEqual({
        owner: 'sales',
        sla: 3,
      });
      await sameError(ann, 'get_project_metadata(987654)', 'RMPProject.getProjectMetadata(987654)');
      expect(await viaScript(admin, 'RMPProject.saveProjectVault({apiKey: "k1"})')).toEqual({ apiKey: 'k1' });
      expect(await viaTemplate(ann, 'P_load_project_vault()')).toEqual({ apiKey: 'k1' });
      expect(await same(ann, 'P_load_project_vault()', 'RMPProject.loadProjectVault()')).toEqual({
        apiKey: 'k1',
      });
      expect(await viaScript(admin, 'RMPProject.deleteProjectVault()')).toBe(true);
      expect(await same(admin, 'P_delete_project_vault()', 'RMPProject.deleteProjectVault()')).toBe(false);
    });
  });

  describe('RMPUser', () => {
    it('lanes, rights and user data', async () => {
      // The platform documents RMPUser.getLanes' ids as strings: the template's numbers, as text.
      expect(await viaTemplate(ann, 'get_lanes()')).toEqual([
        { id: w.ids.clerks, name: 'Clerks', pool: w.ids.pool },
      ]);
      expect(await viaScript(ann, 'RMPUser.getLanes()')).toEqual([
        { id: String(w.ids.clerks), name: 'Clerks', pool: w.ids.pool },
      ]);
      const dora = (await viaTemplate(ann, 'get_lanes("dora")')) as Array<{ id: number }>;
      expect(await viaScript(ann, 'RMPUser.getLanes("dora")')).toEqual(
        dora.map((l) => ({ ...l, id: String(l.id) })),
      );
      expect(await same(ann, `has_right(${w.ids.clerks})`, `RMPUser.hasRight(${w.ids.clerks})`)).toBe(true);
      expect(
        await same(ann, `has_right("dora", ${w.ids.clerks})`, `RMPUser.hasRight("dora", ${w.ids.clerks})`),
      ).toBe(false);
      expect(
        await same(ann, `is_user_in_lane([${w.ids.managers}])`, `RMPUser.isUserInLane([${w.ids.managers}])`),
      ).toBe(false);
      await same(ann, 'get_user_data("carl")', 'RMPUser.getUserData("carl")');
      await same(
        ann,
        `get_lane_users(${w.ids.pool}, ${w.ids.clerks})`,
        `RMPUser.getLaneUsers(${w.ids.pool}, ${w.ids.clerks})`,
      );
      await same(ann, 'get_applications()', 'RMPUser.getApplications()');
      await same(
        ann,
        'get_applications("ann", "web", "LIVE", true)',
        'RMPUser.getApplications("ann", "web", "LIVE", true)',
      );
      expect(await sameError(ann, 'get_lanes("nobody")', 'RMPUser.getLanes("nobody")')).toBe(
        'Unable to retrieve user.',
      );
    });

    it('preferences and metadata: what the script saves the template reads', async () => {
      const carl = await inProject('carl');
      expect(await same(carl, 'get_preferences()', 'RMPUser.getPreferences()')).toEqual({});
      expect(await viaScript(carl, 'RMPUser.savePreferences({theme: "light"})')).toBe('carl');
      expect(await viaTemplate(carl, 'get_preferences()')).toEqual({ theme: 'light' });
      expect(await viaScript(admin, 'RMPUser.changeMetadata("carl", "desk.floor", 3)')).toEqual({
        desk: { floor: 3 },
      });
      expect(await same(carl, 'get_user_metadata()', 'RMPUser.getUserMetadata()')).toEqual({
        desk: { floor: 3 },
      });
      await sameError(
        admin,
        'P_change_metadata("carl", "desk.floor.x", 1)',
        'RMPUser.changeMetadata("carl", "desk.floor.x", 1)',
      );
    });

    it('organisation, lane jobs, preferences of another user, unblocking', async () => {
      expect(await same(ann, 'get_manager("carl")', 'RMPUser.getManager("carl")')).toBe('ann');
      expect(await same(ann, 'get_manager("carl", 2)', 'RMPUser.getManager("carl", 2)')).toBe('dora');
      expect(
        await same(ann, `get_lane_job_number(${w.ids.clerks})`, `RMPUser.getLaneJobNumber(${w.ids.clerks})`),
      ).toBe(0);
      expect(
        await sameError(ann, 'get_lane_job_number(987654321)', 'RMPUser.getLaneJobNumber(987654321)'),
      ).toBe('Lane not found.');

      expect(await viaTemplate(admin, 'P_change_preferences("dora", "desk.floor", 2)')).toEqual({
        desk: { floor: 2 },
      });
      expect(await viaScript(admin, 'RMPUser.changePreferences("dora", "desk.tags", ["a", "b"])')).toEqual({
        desk: { floor: 2, tags: ['a', 'b'] },
      });
      expect(await viaTemplate(admin, 'get_preferences("dora")')).toEqual({
        desk: { floor: 2, tags: ['a', 'b'] },
      });
      await sameError(
        admin,
        'P_change_preferences("dora", "desk.floor.x", 1)',
        'RMPUser.changePreferences("dora", "desk.floor.x", 1)',
      );

      const { users } = w.platform.directory;
      try {
        expect(await viaScript(admin, 'RMPUser.unblockUser("bob")')).toBe('bob');
        expect((await users.require(w.account, 'bob')).status).toBe('active');
        await users.update(w.account, w.ids.bob, { status: 'blocked' });
        expect(await viaTemplate(admin, 'unblock_user("bob")')).toBe('bob');
        expect((await users.require(w.account, 'bob')).status).toBe('active');
        expect(await sameError(admin, 'unblock_user("nobody")', 'RMPUser.unblockUser("nobody")')).toBe(
          'Unable to retrieve user.',
        );
      } finally {
        await users.update(w.account, w.ids.bob, { status: 'blocked' });
      }
    });

    it('impersonate: for administrators only; RMPData.getCurrentUser follows', async () => {
      expect(await sameError(ann, 'impersonate("carl")', 'RMPUser.impersonate("carl")')).toBe(
        'Impersonification is not allowed for user.',
      );
      const ctx = await inProject('admin');
      const { output } = await evaluate(
        scriptTag(
          'const login = RMPUser.impersonate("carl"); RMPData.setOutput([login, RMPData.getCurrentUser().login]);',
        ),
        ctx,
      );
      expect(JSON.parse(output)).toEqual(['carl', 'carl']);
      expect((await evaluate('${P_user.login}', ctx)).output).toBe('carl');
    });
  });

  describe('RMPFile', () => {
    it('creates, reads and changes uploaded files as the File functions do', async () => {
      const t = (await viaTemplate(ann, 'create_file("notes.txt", "hello world", {})')) as string;
      const s = (await viaScript(ann, 'RMPFile.createFile("notes.txt", "hello world", {})')) as string;
      expect(s).toMatch(/^[0-9a-f-]{36}$/);
      expect(await viaScript(ann, `RMPFile.fileContent("${t}", "NONE")`)).toBe('hello world');
      expect(await viaTemplate(ann, `R_file_content("${s}", "NONE")`)).toBe('hello world');
      const descT = (await viaTemplate(ann, `R_file_desc("${t}")`)) as Record<string, unknown>;
      const descS = (await viaScript(ann, `RMPFile.fileDesc("${s}")`)) as Record<string, unknown>;
      expect({ ...descS, id: t }).toEqual(descT);
      expect(
        await same(ann, `R_file_index_of("${t}", "world")`, `RMPFile.fileIndexOf("${t}", "world")`),
      ).toBe(6);
      expect(await same(ann, `R_file_size("${t}")`, `RMPFile.fileSize("${t}")`)).toBe(1);
      await viaTemplate(ann, `append_file("${t}", "!")`);
      await viaScript(ann, `RMPFile.appendFile("${s}", "!")`);
      await viaTemplate(ann, `file_replace("${t}", "o", "0")`);
      await viaScript(ann, `RMPFile.fileReplace("${s}", "o", "0")`);
      expect(await viaScript(ann, `RMPFile.fileContent("${s}", "NONE")`)).toBe('hell0 w0rld!');
      expect(await viaTemplate(ann, `R_file_content("${t}", "NONE")`)).toBe('hell0 w0rld!');
      const zip = (await viaScript(
        ann,
        `RMPFile.zipFile([${JSON.stringify(t)}, ${JSON.stringify(s)}], "both.zip")`,
      )) as string;
      expect((await viaTemplate(ann, `R_file_desc("${zip}")`)) as object).toMatchObject({ name: 'both.zip' });
      expect(await same(ann, `delete_file("${t}")`, `RMPFile.deleteFile("${s}")`)).toBe(true);
      expect(await sameError(ann, `R_file_size("${t}")`, `RMPFile.fileSize("${t}")`)).toBe(
        `Uploaded file ${t} doesn't exist.`,
      );
    });

    it('saveFile, saveFileDesc, fileSubstring, unzipFile and readExcelCells as the File functions', async () => {
      const twins = async (name: string, content: string) => [
        (await viaTemplate(ann, `create_file("${name}", "${content}", {})`)) as string,
        (await viaTemplate(ann, `create_file("${name}", "${content}", {})`)) as string,
      ];
      const [t, s] = await twins('a.txt', 'first text');
      expect(await viaTemplate(ann, `save_file("${t}", "second text, longer", {})`)).toBe(t);
      expect(await viaScript(ann, `RMPFile.saveFile("${s}", "second text, longer", {})`)).toBe(s);
      for (const id of [t, s])
        expect(await viaTemplate(ann, `R_file_content("${id}", "NONE")`)).toBe('second text, longer');

      const change = '{"name": "renamed.txt", "metadata": {"k": 1}}';
      const descT = (await viaTemplate(ann, `save_file_desc("${t}", ${change})`)) as Record<string, unknown>;
      const descS = (await viaScript(ann, `RMPFile.saveFileDesc("${s}", ${change})`)) as Record<
        string,
        unknown
      >;
      expect(descT).toMatchObject({ name: 'renamed.txt', metadata: { k: 1 } });
      expect({ ...(withoutNullFields(descS) as object), id: t }).toEqual(descT);

      expect(
        await same(ann, `R_file_substring("${t}", "text", 3)`, `RMPFile.fileSubstring("${t}", "text", 3)`),
      ).toBe(7);
      expect(
        await same(ann, `R_file_substring("${t}", "text", 8)`, `RMPFile.fileSubstring("${t}", "text", 8)`),
      ).toBe(-1);

      const zip = (await viaTemplate(ann, `zip_file(["${t}", "${s}"], "both.zip")`)) as string;
      const withoutIds = (files: unknown) =>
        (files as Record<string, unknown>[]).map(({ id: _id, ...rest }) => withoutNullFields(rest));
      const unzippedT = await viaTemplate(ann, `unzip_file("${zip}")`);
      const unzippedS = await viaScript(ann, `RMPFile.unzipFile("${zip}")`);
      expect(withoutIds(unzippedT)).toHaveLength(2);
      expect(withoutIds(unzippedS)).toEqual(withoutIds(unzippedT));

      const book = await createBinary(ann, 'orders.xlsx', await sampleWorkbook());
      const cells = '[{"worksheet": "Orders", "cells": [{"col": "A", "row": 1}, {"col": "B", "row": 2}]}]';
      const read = await same(
        ann,
        `R_read_excel_cells("${book}", ${cells})`,
        `RMPFile.readExcelCells("${book}", ${cells})`,
      );
      expect(read).toEqual({ Orders: { 1: { A: 'Customer' }, 2: { B: '1250' } } });
      await sameError(
        ann,
        `R_read_excel_cells("${t}", ${cells})`,
        `RMPFile.readExcelCells("${t}", ${cells})`,
      );
    });

    it('detachFile detaches as detach_file does', async () => {
      const instance = await w.platform.applications.create(
        w.account,
        { userId: w.ids.ann, login: 'ann' },
        { mode: 'LIVE', title: 'Attachments' },
      );
      const t = (await viaTemplate(ann, 'create_file("t.txt", "t", {})')) as string;
      const s = (await viaTemplate(ann, 'create_file("t.txt", "t", {})')) as string;
      await w.platform.applications.attach(
        w.account,
        { userId: w.ids.ann, isAdmin: false, mode: 'LIVE' },
        { userId: w.ids.ann, login: 'ann' },
        instance.id,
        [t, s],
      );
      const withoutIds = (files: unknown) =>
        (files as Record<string, unknown>[]).map(({ id: _id, ...rest }) => withoutNullFields(rest));
      const detachedT = await viaTemplate(ann, `detach_file("${t}", "${instance.id}")`);
      const detachedS = await viaScript(ann, `RMPApplication.detachFile("${s}", "${instance.id}")`);
      expect(withoutIds(detachedT)).toHaveLength(1);
      expect(withoutIds(detachedS)).toEqual(withoutIds(detachedT));
      expect(
        await same(
          ann,
          `list_attached_file("${instance.id}")`,
          `RMPApplication.listAttachedFile("${instance.id}")`,
        ),
      ).toEqual([]);
      // Detaching again: nothing was attached any more.
      expect(
        await same(
          ann,
          `detach_file("${t}", "${instance.id}")`,
          `RMPApplication.detachFile("${t}", "${instance.id}")`,
        ),
      ).toEqual([]);
    });
  });

  describe('RMPApplication', () => {
    it('instances, history and translations', async () => {
      const instance = await w.platform.applications.create(
        w.account,
        { userId: w.ids.ann, login: 'ann' },
        { mode: 'LIVE', title: 'Orders' },
      );
      await same(
        ann,
        `get_instance_info("${instance.id}")`,
        `RMPApplication.getInstanceInfo("${instance.id}")`,
      );
      await same(
        ann,
        `list_attached_file("${instance.id}")`,
        `RMPApplication.listAttachedFile("${instance.id}")`,
      );
      const inInstance = await inProject('ann');
      inInstance.applicationInstanceId = instance.id;
      await same(inInstance, 'get_history()', 'RMPApplication.getHistory()');
      expect(await same(ann, 'i18n("greeting", "?")', 'RMPApplication.i18n("greeting", "?")')).toBe(
        'Bonjour',
      );
      expect(await same(ann, 'i18n("bye", "?")', 'RMPApplication.i18n("bye", "?")')).toBe('?');
      // A function refused on this surface is refused to the script too.
      expect(await errorOf(ann, '${attach_file("x")}')).toBe(
        'function attach_file is only available in the input variables of a manual task',
      );
      expect(await errorOf(ann, scriptTag('RMPApplication.attachFile("x")'))).toBe(
        'RMPApplication.attachFile: function attach_file is only available in the input variables of a manual task (script line 1, column 26)',
      );
    });
  });

  describe('RMPData', () => {
    it('the current user, mode and internal parameters are those the template sees', async () => {
      const inRequest = await contextIn(w, { user: 'carl', request: w.request });
      expect(await viaScript(inRequest, 'RMPData.getCurrentUser()')).toEqual(
        await viaTemplate(inRequest, 'P_user'),
      );
      expect(await viaScript(inRequest, 'RMPData.getExecutionMode()')).toBe('LIVE');
      for (const name of [
        'P_customer',
        'P_mode',
        'P_urls',
        'P_version',
        'P_initiator',
        'P_request',
        'P_locks',
        'P_message',
        'P_connected_user',
        'P_language',
      ])
        expect(
          withoutNullFields(await viaScript(inRequest, `RMPData.getInternalParameter("${name}")`)),
        ).toEqual(await viaTemplate(inRequest, name));
      expect(await viaScript(inRequest, 'RMPData.getRequestId()')).toBe(w.request);
      expect(await viaScript(inRequest, 'RMPData.getProjectId()')).toBe(w.ids.project);
      const nobody = await contextIn(w, {});
      expect(
        await viaScript(nobody, '[RMPData.getCurrentUser(), RMPData.getRequestId(), RMPData.getProjectId()]'),
      ).toEqual([null, null, null]);
      expect(await errorOf(nobody, scriptTag('RMPData.getInternalParameter("P_secret")'))).toBe(
        'RMPData.getInternalParameter: argument 1 (name) must be one of P_customer, P_mode, P_user, P_urls, P_version, P_initiator, P_request, P_locks, P_message, P_connected_user, P_language, got "P_secret" (script line 1, column 29)',
      );
    });

    it('getVariable and getAllVariables read the data variables and what the template assigned', async () => {
      const source =
        '<#assign total = amount * 2><#assign when = "2024-01-15"?date("yyyy-MM-dd")>' +
        scriptTag(
          'RMPData.setOutput({amount: RMPData.getVariable("amount"), total: RMPData.getVariable("total"), when: RMPData.getVariable("when"), fn: RMPData.getVariable("list_objects"), missing: RMPData.getVariable("nope"), all: RMPData.getAllVariables()})',
        );
      const { output } = await evaluate(source, ann, { amount: 21, customer: { name: 'Acme' } });
      expect(JSON.parse(output)).toEqual({
        amount: 21,
        total: 42,
        when: '2024-01-15T00:00:00.000Z',
        fn: null,
        missing: null,
        all: { amount: 21, customer: { name: 'Acme' } },
      });
    });

    it('setOutput: text as it is, other values as compact JSON, nothing for null or no call; the last call wins', async () => {
      const out = async (js: string) => (await evaluate(`[${scriptTag(js)}]`, ann)).output;
      expect(await out('RMPData.setOutput("a <b> & c")')).toBe('[a <b> & c]');
      expect(await out('RMPData.setOutput({b: [1, 2.5, "x"], a: null})')).toBe(
        '[{"b":[1,2.5,"x"],"a":null}]',
      );
      expect(await out('RMPData.setOutput(12.5)')).toBe('[12.5]');
      expect(await out('RMPData.setOutput(true)')).toBe('[true]');
      expect(await out('RMPData.setOutput(null)')).toBe('[]');
      expect(await out('let x = 1')).toBe('[]');
      expect(await out('RMPData.setOutput("first"); RMPData.setOutput("second")')).toBe('[second]');
      expect(await out('const o = {n: 1}; RMPData.setOutput(o); o.n = 2')).toBe('[{"n":1}]');
    });
  });
});
