/**
 * The RMP* objects a script sees, derived from the function registry: every registry function
 * becomes a method of the object of its group (Collections → RMPCollection …), named by the
 * camelCase of its template name without the `P_`/`R_` prefix (`list_objects` → `listObjects`,
 * `R_lock` → `lock`, `P_json_put` → `jsonPut`), taking the same arguments. A small table adds
 * the platform's documented names (`RMPCollection.find`, `RMPRequest.raiseError` …), moves the
 * project functions to RMPProject and adapts the two results the platform documents as booleans.
 * RMPData's accessors (variables, current user, mode, output) are the only methods not backed by
 * a registry function.
 *
 * The same description drives the sandbox (method ids), docs/script.md and autocompletion
 * (`describeScriptApi`). Adding a function to the registry adds its method here.
 */
import type { TableObject } from './worker/messages.js';
import {
  FUNCTION_GROUPS,
  formSignature,
  type FunctionGroup,
  type FunctionRegistry,
  type FunctionSpec,
} from '../functions/registry.js';

export const SCRIPT_OBJECTS = [
  'RMPApplication',
  'RMPCollection',
  'RMPData',
  'RMPFile',
  'RMPProject',
  'RMPRequest',
  'RMPUser',
  'RMPUtilities',
] as const;
export type ScriptObjectName = (typeof SCRIPT_OBJECTS)[number];

/** Where a group's functions go unless the table below says otherwise. */
const OBJECT_OF_GROUP: Record<FunctionGroup, ScriptObjectName> = {
  Application: 'RMPApplication',
  Collections: 'RMPCollection',
  'Composite API': 'RMPRequest',
  File: 'RMPFile',
  Request: 'RMPRequest',
  User: 'RMPUser',
  Utilities: 'RMPUtilities',
};

/** How a method's result differs from its function's (the platform documents these as booleans). */
export type ResultAdapter =
  /** R_lock: true when the lock was obtained, false on `Timeout exception`. */
  | 'lock-obtained'
  /** Lane membership changes: true once done (the function's array of user ids is dropped). */
  | 'done'
  /** RMPUser.getLanes: the platform documents lane ids as strings ([{"id": "{String}", "name": …}]). */
  | 'string-ids';

/** How a platform name's arguments differ from its function's (one function behind several documented names). */
export type ArgumentAdapter =
  /** The argument at `index` is fixed (updateOne/updateMany: update_field's `multi`); the script passes the ones before it. */
  | { kind: 'fixed'; index: number; value: unknown }
  /** The options object at `index` gets `key` set (importCSV/importJSON: import_objects' `format`). */
  | { kind: 'option'; index: number; key: string; value: string };

/** A documented name whose arguments are adapted before the function is called. */
export interface PlatformVariant {
  name: string;
  args: ArgumentAdapter;
}

export interface PlatformName {
  /** Another object than the group's. */
  object?: ScriptObjectName;
  /** Extra JS names (the platform's documented ones). */
  names?: string[];
  /** The camelCase name is not offered (it is not a usable or documented JS name). */
  replaceCamelCase?: boolean;
  result?: ResultAdapter;
  /** Documented names that call the function with an argument fixed or an option set. */
  variants?: PlatformVariant[];
}

/** The explicit renames: the platform's JS names that camelCase does not give. */
const PLATFORM_NAMES: ReadonlyMap<string, PlatformName> = new Map(
  Object.entries({
    list_objects: { names: ['find', 'list'] },
    count_objects: { names: ['count', 'countDocuments'] },
    load_object: { names: ['findOne'] },
    save_object: { names: ['save', 'saveObjects'] },
    update_objects: { names: ['update'] },
    remove_objects: { names: ['remove'] },
    aggregate_collection: { names: ['aggregate'] },
    import_objects: {
      names: ['import'],
      variants: [
        { name: 'importCSV', args: { kind: 'option', index: 2, key: 'format', value: 'CSV' } },
        { name: 'importJSON', args: { kind: 'option', index: 2, key: 'format', value: 'JSON' } },
      ],
    },
    update_field: {
      variants: [
        { name: 'updateOne', args: { kind: 'fixed', index: 3, value: false } },
        { name: 'updateMany', args: { kind: 'fixed', index: 3, value: true } },
      ],
    },
    get_lanes: { result: 'string-ids' },
    throw: { names: ['raiseError'], replaceCamelCase: true },
    R_lock: { result: 'lock-obtained' },
    P_add_user_to_lane: { result: 'done' },
    P_remove_user_from_lane: { result: 'done' },
    get_project_metadata: { object: 'RMPProject' },
    get_custom_list: { object: 'RMPProject' },
    save_custom_list: { object: 'RMPProject' },
    P_load_project_vault: { object: 'RMPProject' },
    P_save_project_vault: { object: 'RMPProject' },
    P_delete_project_vault: { object: 'RMPProject' },
  } satisfies Record<string, PlatformName>),
);

/** RMPData's own methods: reads of the evaluation, not registry functions. */
export type DataAccessor =
  | 'getCurrentUser'
  | 'getExecutionMode'
  | 'getInternalParameter'
  | 'getVariable'
  | 'getAllVariables'
  | 'getRequestId'
  | 'getProjectId';

interface AccessorDoc {
  params: ScriptParam[];
  returns: string;
  doc: string;
}

const ACCESSORS: Record<DataAccessor, AccessorDoc> = {
  getCurrentUser: {
    params: [],
    returns: 'object',
    doc: 'The connected user as P_user shows it ({id, login, name, profile, extended, preferences, delegators}); null when nobody is connected.',
  },
  getExecutionMode: {
    params: [],
    returns: 'string',
    doc: 'The execution mode: LIVE, ACCEPTANCE or TEST (P_mode).',
  },
  getInternalParameter: {
    params: [{ name: 'name', type: 'string', optional: false }],
    returns: 'any',
    doc: 'One internal parameter by name (P_customer, P_mode, P_user, P_urls, P_version, P_initiator, P_request, P_locks, P_message, P_connected_user, P_language); null when it has no value.',
  },
  getVariable: {
    params: [{ name: 'name', type: 'string', optional: false }],
    returns: 'any',
    doc: "A variable's current value as the template sees it (data variables, variables the template assigned); null when missing. Dates become ISO-8601 text; functions and directives are not values (null).",
  },
  getAllVariables: {
    params: [],
    returns: 'object',
    doc: "The evaluation's data variables (the request's data document) with their current values, by name.",
  },
  getRequestId: {
    params: [],
    returns: 'string',
    doc: 'The id of the current process request; null outside a request.',
  },
  getProjectId: { params: [], returns: 'integer', doc: 'The id of the current project; null when none.' },
};

export interface ScriptParam {
  name: string;
  type: string;
  optional: boolean;
  variadic?: boolean;
}

export interface ScriptMethod {
  /** Index in ScriptApi.methods: what the sandbox sends back to call it. */
  readonly id: number;
  readonly object: ScriptObjectName;
  readonly name: string;
  /** The registry function called (its declared name); absent for RMPData's accessors and setOutput. */
  readonly function?: string;
  readonly accessor?: DataAccessor;
  readonly result?: ResultAdapter;
  /** Set for a platform variant (updateOne, importCSV …): how its arguments become the function's. */
  readonly args?: ArgumentAdapter;
  /** One parameter list per form of the function (overloads). */
  readonly forms: ScriptParam[][];
  readonly returns: string;
  readonly doc: string;
  readonly deprecated: boolean;
}

export interface ScriptApi {
  /** Every callable method, by id (setOutput is not here: it runs inside the sandbox). */
  readonly methods: readonly ScriptMethod[];
  /** The methods of each object, sorted by name, setOutput included (id -1). */
  readonly objects: Readonly<Record<ScriptObjectName, readonly ScriptMethod[]>>;
  /** What the sandbox needs to build the objects: TableObject[] (worker/messages.ts) as JSON. */
  readonly table: string;
}

/** `list_objects` → `listObjects`, `R_lock` → `lock`, `P_json_accumulateAll` → `jsonAccumulateAll`. */
export function jsMethodName(functionName: string): string {
  const bare = functionName.replace(/^[PR]_/, '');
  return bare.replace(/_+([A-Za-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

const SET_OUTPUT: Omit<ScriptMethod, 'id'> = {
  object: 'RMPData',
  name: 'setOutput',
  forms: [[{ name: 'value', type: 'any', optional: false }]],
  returns: 'none',
  doc: "Sets the directive's output: a string as it is, any other value as compact JSON (null/undefined: nothing). The last call wins.",
  deprecated: false,
};

const cache = new WeakMap<FunctionRegistry, ScriptApi>();

/** The RMP* objects of a registry (cached per registry). */
export function scriptApi(registry: FunctionRegistry): ScriptApi {
  let api = cache.get(registry);
  if (!api) cache.set(registry, (api = buildApi(registry.list())));
  return api;
}

function buildApi(specs: readonly FunctionSpec[]): ScriptApi {
  const methods: ScriptMethod[] = [];
  const byObject = new Map<ScriptObjectName, Map<string, ScriptMethod>>(
    SCRIPT_OBJECTS.map((o) => [o, new Map<string, ScriptMethod>()]),
  );
  const add = (m: Omit<ScriptMethod, 'id'>): void => {
    const names = byObject.get(m.object)!;
    const taken = names.get(m.name);
    if (taken) {
      if (taken.function !== undefined && taken.function === m.function) return; // an alias with the same JS name
      const what = (x: Omit<ScriptMethod, 'id'>) => x.function ?? `RMPData's ${x.name}`;
      throw new Error(`script api: ${m.object}.${m.name} would call both ${what(taken)} and ${what(m)}`);
    }
    const method = { ...m, id: methods.length };
    methods.push(method);
    names.set(m.name, method);
  };

  for (const accessor of Object.keys(ACCESSORS) as DataAccessor[]) {
    const a = ACCESSORS[accessor];
    add({ object: 'RMPData', name: accessor, accessor, forms: [a.params], ...a, deprecated: false });
  }
  for (const spec of specs) {
    const rule = PLATFORM_NAMES.get(spec.name) ?? {};
    const object = rule.object ?? OBJECT_OF_GROUP[spec.group];
    const names = [
      ...(rule.replaceCamelCase ? [] : [spec.name, ...(spec.aliases ?? [])].map(jsMethodName)),
      ...(rule.names ?? []),
    ];
    const forms = spec.forms.map((form) =>
      form.params.map((p) => ({
        name: p.name,
        type: Array.isArray(p.type) ? p.type.join(' | ') : p.type,
        optional: p.optional ?? false,
        ...(p.variadic ? { variadic: true } : {}),
      })),
    );
    const returns = rule.result === 'lock-obtained' || rule.result === 'done' ? 'boolean' : spec.returns;
    const common = {
      object,
      function: spec.name,
      ...(rule.result ? { result: rule.result } : {}),
      returns,
      doc: spec.doc,
      deprecated: spec.flags?.deprecated ?? false,
    };
    for (const name of names) add({ ...common, name, forms });
    for (const variant of rule.variants ?? []) {
      const a = variant.args;
      // A fixed argument is not the script's to pass: the forms stop before it.
      const variantForms = a.kind === 'fixed' ? forms.map((f) => f.slice(0, a.index)) : forms;
      add({ ...common, name: variant.name, forms: variantForms, args: a });
    }
  }

  const objects = {} as Record<ScriptObjectName, ScriptMethod[]>;
  for (const [object, names] of byObject) {
    const list = [...names.values()];
    if (object === 'RMPData') list.push({ ...SET_OUTPUT, id: -1 });
    objects[object] = list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const table = JSON.stringify(
    SCRIPT_OBJECTS.map((o): TableObject => ({
      object: o,
      methods: objects[o].filter((m) => m.id >= 0).map((m) => ({ name: m.name, id: m.id })),
    })),
  );
  return { methods, objects, table };
}

/** A method's signatures as a script writer reads them: `RMPCollection.find(query, name, first?, limit?)`. */
export function methodSignatures(method: ScriptMethod): string[] {
  return method.forms.map(
    (params) =>
      `${method.object}.${method.name}(${params
        .map((p) => `${p.variadic ? '...' : ''}${p.name}${p.optional ? '?' : ''}`)
        .join(', ')})`,
  );
}

export interface ScriptMethodDescription {
  object: ScriptObjectName;
  name: string;
  signatures: string[];
  params: ScriptParam[][];
  returns: string;
  doc: string;
  /** The registry function it calls (template name), if any. */
  function?: string;
  /** The function's template signatures, for reference. */
  templateSignatures?: string[];
  deprecated: boolean;
}

/** The whole API as plain data (for the console's autocompletion and the docs). */
export function describeScriptApi(registry: FunctionRegistry): ScriptMethodDescription[] {
  const api = scriptApi(registry);
  const out: ScriptMethodDescription[] = [];
  for (const object of SCRIPT_OBJECTS) {
    for (const m of api.objects[object]) {
      const spec = m.function ? registry.get(m.function) : undefined;
      out.push({
        object,
        name: m.name,
        signatures: methodSignatures(m),
        params: m.forms,
        returns: m.returns,
        doc: m.doc,
        ...(m.function ? { function: m.function } : {}),
        ...(spec ? { templateSignatures: spec.forms.map((f) => formSignature(spec.name, f)) } : {}),
        deprecated: m.deprecated,
      });
    }
  }
  return out;
}

/** Groups, for the docs: which group's functions each object offers. */
export function objectsOfGroups(): Array<[FunctionGroup, ScriptObjectName]> {
  return FUNCTION_GROUPS.map((g) => [g, OBJECT_OF_GROUP[g]]);
}

/** The table of renames, for the docs. */
export function platformNames(): Array<[string, PlatformName]> {
  return [...PLATFORM_NAMES];
}
