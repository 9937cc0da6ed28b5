/**
 * The RMP* objects are derived from the registry: every function is a method of its group's
 * object under its camelCase name, plus the platform's documented names; a function added to the
 * registry is callable from a script without any other change.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { defaultRegistry, defineFunction, FunctionRegistry } from '../../src/functions/registry.js';
import {
  closeScripts,
  describeScriptApi,
  jsMethodName,
  runScript,
  SCRIPT_OBJECTS,
  scriptApi,
  type ScriptObjectName,
} from '../../src/script/index.js';

afterAll(() => closeScripts());

const ctx = createExecutionContext();
const api = scriptApi(defaultRegistry());
const method = (object: ScriptObjectName, name: string) => api.objects[object].find((m) => m.name === name);

describe('the mapping', () => {
  it('names methods by the camelCase of the template name without P_ / R_', () => {
    expect(jsMethodName('list_objects')).toBe('listObjects');
    expect(jsMethodName('R_lock')).toBe('lock');
    expect(jsMethodName('P_json_accumulateAll')).toBe('jsonAccumulateAll');
    expect(jsMethodName('P_get_oauth2_token')).toBe('getOauth2Token');
    expect(jsMethodName('get_i18n')).toBe('getI18n');
    expect(jsMethodName('now')).toBe('now');
  });

  it('offers every registry function (and alias) in the object of its group', () => {
    const groupObject: Record<string, ScriptObjectName> = {
      Application: 'RMPApplication',
      Collections: 'RMPCollection',
      'Composite API': 'RMPRequest',
      File: 'RMPFile',
      Request: 'RMPRequest',
      User: 'RMPUser',
      Utilities: 'RMPUtilities',
    };
    const moved = new Set([
      'get_project_metadata',
      'get_custom_list',
      'save_custom_list',
      'P_load_project_vault',
      'P_save_project_vault',
      'P_delete_project_vault',
    ]);
    for (const spec of defaultRegistry().list()) {
      const object = moved.has(spec.name) ? 'RMPProject' : groupObject[spec.group]!;
      const names =
        spec.name === 'throw' ? ['raiseError'] : [spec.name, ...(spec.aliases ?? [])].map(jsMethodName);
      for (const name of names) expect(method(object, name)?.function, `${object}.${name}`).toBe(spec.name);
    }
    const mapped = new Set(api.methods.filter((m) => m.function).map((m) => m.function));
    expect([...mapped].sort()).toEqual(
      defaultRegistry()
        .list()
        .map((s) => s.name)
        .sort(),
    );
  });

  it('adds the platform’s documented names and adapts the documented boolean results', () => {
    for (const name of ['find', 'list', 'listObjects'])
      expect(method('RMPCollection', name)?.function).toBe('list_objects');
    expect(method('RMPCollection', 'count')?.function).toBe('count_objects');
    expect(method('RMPCollection', 'save')?.function).toBe('save_object');
    expect(method('RMPCollection', 'aggregate')?.function).toBe('aggregate_collection');
    expect(method('RMPCollection', 'createCollection')?.forms).toEqual([
      [
        { name: 'name', type: 'string', optional: false },
        { name: 'is_public', type: 'boolean', optional: false },
        { name: 'is_readonly', type: 'boolean', optional: false },
      ],
    ]);
    expect(method('RMPRequest', 'lock')).toMatchObject({
      function: 'R_lock',
      result: 'lock-obtained',
      returns: 'boolean',
    });
    expect(method('RMPRequest', 'unlock')?.function).toBe('R_unlock');
    expect(method('RMPRequest', 'addUserToLane')).toMatchObject({
      function: 'P_add_user_to_lane',
      returns: 'boolean',
    });
    expect(method('RMPRequest', 'raiseError')?.function).toBe('throw');
    expect(method('RMPRequest', 'throw')).toBeUndefined();
    expect(method('RMPUser', 'getLanes')?.function).toBe('get_lanes');
    expect(api.objects.RMPProject.map((m) => m.name)).toEqual([
      'deleteProjectVault',
      'getCustomList',
      'getProjectMetadata',
      'loadProjectVault',
      'saveCustomList',
      'saveProjectVault',
    ]);
    expect(api.objects.RMPData.map((m) => m.name)).toEqual([
      'getAllVariables',
      'getCurrentUser',
      'getExecutionMode',
      'getInternalParameter',
      'getProjectId',
      'getRequestId',
      'getVariable',
      'setOutput',
    ]);
  });

  it('is what the sandbox builds: the same objects with the same methods, frozen', async () => {
    const { output } = await runScript(
      `RMPData.setOutput(${JSON.stringify(SCRIPT_OBJECTS)}.map((o) => [o, Object.keys(globalThis[o]).sort(), Object.isFrozen(globalThis[o])]))`,
      { ctx },
    );
    expect(JSON.parse(output)).toEqual(
      SCRIPT_OBJECTS.map((o) => [o, api.objects[o].map((m) => m.name).sort(), true]),
    );
  });

  it('describes the API for docs and autocompletion', () => {
    const find = describeScriptApi(defaultRegistry()).find(
      (d) => d.object === 'RMPCollection' && d.name === 'find',
    );
    expect(find).toMatchObject({
      signatures: ['RMPCollection.find(query, name, first?, limit?)'],
      function: 'list_objects',
      templateSignatures: ['list_objects(query: any, name: string, first?: any, limit?: any)'],
      returns: 'array of objects',
    });
    const aggregate = describeScriptApi(defaultRegistry()).find((d) => d.name === 'aggregate');
    expect(aggregate?.signatures).toEqual(['RMPCollection.aggregate(name, ...pipeline)']);
  });

  it('refuses a registry where two functions would get the same JS name', () => {
    const spec = (name: string) =>
      defineFunction({
        name,
        group: 'Utilities',
        rights: 'none',
        doc: '',
        returns: 'string',
        forms: [{ params: [], impl: () => name }],
      });
    expect(() => scriptApi(new FunctionRegistry([spec('shout_text'), spec('P_shout_text')]))).toThrow(
      'script api: RMPUtilities.shoutText would call both shout_text and P_shout_text',
    );
  });
});

describe('a function added to the registry', () => {
  const shout = defineFunction({
    name: 'P_shout_text',
    group: 'Utilities',
    rights: 'none',
    doc: 'Upper-cases a text and adds an exclamation mark.',
    returns: 'string',
    forms: [
      {
        params: [
          { name: 'text', type: 'string' },
          { name: 'times', type: 'integer', optional: true, default: 1 },
        ],
        impl: (_ctx, [text, times]) => `${(text as string).toUpperCase()}${'!'.repeat(times as number)}`,
      },
    ],
  });
  const weather = defineFunction({
    name: 'get_weather',
    group: 'Request',
    rights: 'none',
    doc: 'A made-up asynchronous function.',
    returns: 'object',
    forms: [
      { params: [{ name: 'city', type: 'string' }], impl: async (_ctx, [city]) => ({ city, sky: 'clear' }) },
    ],
  });
  const registry = new FunctionRegistry([...defaultRegistry().list(), shout, weather]);

  it('is a method of its group’s object, with the registry’s argument checks', async () => {
    const { output } = await runScript(
      'RMPData.setOutput([RMPUtilities.shoutText("hi"), RMPUtilities.shoutText("hi", "3"), RMPRequest.getWeather("Oslo"), RMPCollection.count.name])',
      { ctx, registry },
    );
    expect(JSON.parse(output)).toEqual(['HI!', 'HI!!!', { city: 'Oslo', sky: 'clear' }, 'count']);
    await expect(runScript('RMPUtilities.shoutText()', { ctx, registry })).rejects.toThrow(
      'RMPUtilities.shoutText: argument 1 (text) is missing: expected a string (script line 1, column 23)',
    );
    await expect(runScript('RMPUtilities.shoutText("a", 1, 2)', { ctx, registry })).rejects.toThrow(
      'RMPUtilities.shoutText: argument 3 is not expected: P_shout_text takes 1 to 2 arguments, got 3',
    );
  });

  it('is not there for a registry without it', async () => {
    await expect(runScript('RMPUtilities.shoutText("hi")', { ctx })).rejects.toThrow(
      'TypeError: not a function (script line 1, column 23)',
    );
  });
});
