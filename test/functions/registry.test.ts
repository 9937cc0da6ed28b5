import { describe, expect, it } from 'vitest';
import { createExecutionContext, type ExecutionContext } from '../../src/functions/context.js';
import {
  bind,
  defaultRegistry,
  defineFunction,
  FunctionError,
  FunctionRegistry,
  FunctionUnavailableError,
  type BoundFunction,
  type CallEnv,
  type FunctionSpec,
} from '../../src/functions/registry.js';

/** Shaped like the template engine's FmDate. */
class FakeDate {
  epochMs = 0;
  kind = 'date';
}

const echo = (_ctx: ExecutionContext, args: unknown[]) => args;

const specs: FunctionSpec[] = [
  defineFunction({
    name: 'typed',
    group: 'Utilities',
    rights: 'none',
    doc: 'one parameter of each type',
    returns: 'array',
    forms: [
      {
        params: [
          { name: 's', type: 'string' },
          { name: 'i', type: 'integer' },
          { name: 'n', type: 'number' },
          { name: 'b', type: 'boolean' },
          { name: 'o', type: 'object' },
          { name: 'a', type: 'array' },
          { name: 'x', type: 'any', optional: true },
        ],
        impl: echo,
      },
    ],
  }),
  defineFunction({
    name: 'list_things',
    group: 'Collections',
    rights: 'none',
    doc: 'defaults',
    returns: 'array',
    flags: { webInterface: true },
    forms: [
      {
        params: [
          { name: 'query', type: 'object' },
          { name: 'name', type: 'string' },
          { name: 'first', type: 'integer', optional: true, default: 0 },
          { name: 'limit', type: 'integer', optional: true, default: 1000 },
        ],
        impl: echo,
      },
    ],
  }),
  defineFunction({
    name: 'P_log',
    group: 'Request',
    rights: 'none',
    doc: 'two forms by arity',
    returns: 'string',
    forms: [
      { params: [{ name: 'message', type: 'string' }], impl: (_c, [m]) => `FINEST ${m}` },
      {
        params: [
          { name: 'level', type: 'string' },
          { name: 'message', type: 'string' },
        ],
        impl: (_c, [l, m]) => `${l} ${m}`,
      },
    ],
  }),
  defineFunction({
    name: 'import_things',
    group: 'Collections',
    rights: 'none',
    doc: 'two forms by type',
    returns: 'string',
    forms: [
      {
        params: [
          { name: 'file', type: 'string' },
          { name: 'options', type: 'object' },
          { name: 'drop', type: 'boolean', optional: true },
        ],
        impl: (_c, [, o, d]) => `options ${JSON.stringify(o)} ${d}`,
      },
      {
        deprecated: true,
        params: [
          { name: 'file', type: 'string' },
          { name: 'separator', type: 'string' },
          { name: 'drop', type: 'boolean', optional: true },
        ],
        impl: (_c, [, s, d]) => `separator ${s} ${d}`,
      },
    ],
  }),
  defineFunction({
    name: 'aggregate',
    group: 'Collections',
    rights: 'none',
    doc: 'variadic',
    returns: 'array',
    forms: [
      {
        params: [
          { name: 'name', type: 'string' },
          { name: 'pipeline', type: ['object', 'array'], variadic: true },
        ],
        impl: echo,
      },
    ],
  }),
  defineFunction({
    name: 'R_read_things',
    aliases: ['read_things'],
    group: 'File',
    rights: 'none',
    doc: 'alias',
    returns: 'string',
    forms: [{ params: [{ name: 'id', type: ['array', 'string', 'integer'] }], impl: echo }],
  }),
  defineFunction({
    name: 'attach_thing',
    group: 'Application',
    rights: 'none',
    doc: 'manual task input only',
    returns: 'string',
    flags: { manualTaskInputOnly: true },
    forms: [{ params: [], impl: () => 'attached' }],
  }),
  defineFunction({
    name: 'impersonate_thing',
    group: 'User',
    rights: 'admin',
    doc: 'admin only',
    returns: 'string',
    adminOnlyMessage: 'Impersonification is not allowed for user.',
    forms: [{ params: [], impl: () => 'done' }],
  }),
  defineFunction({
    name: 'whoami',
    group: 'Utilities',
    rights: 'none',
    doc: 'reads the env',
    returns: 'string',
    forms: [
      { params: [], impl: (ctx, _a, env) => `${ctx.accountId}/${env.templateName}/${env.getVariable('x')}` },
    ],
  }),
];

const registry = new FunctionRegistry(specs);
const ctx = createExecutionContext();
const env: CallEnv = {
  getVariable: (n) => (n === 'x' ? 42 : undefined),
  templateName: 't',
  locale: 'en_US',
  timeZone: 'UTC',
};

function fn(name: string, context: ExecutionContext = ctx): BoundFunction {
  const f = registry.bind(context).get(name);
  if (typeof f !== 'function') throw new Error(`no ${name}`);
  return f as BoundFunction;
}
const call = (name: string, ...args: unknown[]) => fn(name).call(env, ...args);

describe('coercion of arguments to the declared types', () => {
  it('keeps values that already have the type', () => {
    expect(call('typed', 's', 3, 1.5, true, { a: 1 }, [1], 'x')).toEqual([
      's',
      3,
      1.5,
      true,
      { a: 1 },
      [1],
      'x',
    ]);
  });

  it('converts text the way scripts pass it', () => {
    expect(call('typed', 12, ' 12 ', '-1.5e2', 'TRUE', '{"a":{"b":[1]}}', '[1,"2"]')).toEqual([
      '12',
      12,
      -150,
      true,
      { a: { b: [1] } },
      [1, '2'],
      undefined,
    ]);
    expect(call('typed', false, '+7', '.5', 'false', new Map([['k', 'v']]), '[]')).toEqual([
      'false',
      7,
      0.5,
      false,
      { k: 'v' },
      [],
      undefined,
    ]);
  });

  it('gives hashes and sequences to string parameters as compact JSON', () => {
    expect((call('typed', { a: [1, 'b'] }, 1, 1, true, {}, []) as unknown[])[0]).toBe('{"a":[1,"b"]}');
  });

  it.each([
    [['s', 1.5, 1, true, {}, []], 'typed: argument 2 (i) expected an integer, got the number 1.5'],
    [['s', '12.0', 1, true, {}, []], 'typed: argument 2 (i) expected an integer, got the string "12.0"'],
    [
      ['s', '99999999999999999999', 1, true, {}, []],
      'typed: argument 2 (i) expected an integer, got the string "99999999999999999999"',
    ],
    [['s', 1, 'abc', true, {}, []], 'typed: argument 3 (n) expected a number, got the string "abc"'],
    [
      ['s', 1, 1, 'yes', {}, []],
      'typed: argument 4 (b) expected a boolean (true or false), got the string "yes"',
    ],
    [['s', 1, 1, 1, {}, []], 'typed: argument 4 (b) expected a boolean (true or false), got the number 1'],
    [
      ['s', 1, 1, true, '{a:1}', []],
      // the parser's own reason follows (its wording depends on the Node version)
      /^typed: argument 5 \(o\) expected a hash or the JSON text of an object, got the string "\{a:1\}" \(not valid JSON: .*position 1.*\)$/,
    ],
    [
      ['s', 1, 1, true, '[1]', []],
      'typed: argument 5 (o) expected a hash or the JSON text of an object, got the string "[1]" (the JSON text of an array)',
    ],
    [
      ['s', 1, 1, true, [], []],
      'typed: argument 5 (o) expected a hash or the JSON text of an object, got a sequence',
    ],
    [
      ['s', 1, 1, true, {}, {}],
      'typed: argument 6 (a) expected a sequence or the JSON text of an array, got a hash',
    ],
    [
      ['s', 1, 1, true, {}, ''],
      'typed: argument 6 (a) expected a sequence or the JSON text of an array, got an empty string (not valid JSON: Unexpected end of JSON input)',
    ],
    [[() => 1, 1, 1, true, {}, []], 'typed: argument 1 (s) expected a string, got a method'],
    [[new FakeDate(), 1, 1, true, {}, []], 'typed: argument 1 (s) expected a string, got a date'],
  ])('refuses %j', (args, message) => {
    let error: unknown;
    try {
      call('typed', ...args);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FunctionError);
    if (message instanceof RegExp) expect((error as Error).message).toMatch(message);
    else expect((error as Error).message).toBe(message);
  });

  it('refuses a __proto__ key in JSON text, however it is spelled', () => {
    const msg = (text: string) => {
      try {
        call('typed', 's', 1, 1, true, text, []);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(msg('{"a":{"__proto__":{"x":1}}}')).toBe(
      'typed: argument 5 (o) expected a hash or the JSON text of an object, got the string "{\\"a\\":{\\"__proto__\\":{\\"x\\":1}}}" (not valid JSON: the key "__proto__" is not allowed)',
    );
    expect(msg('{"\\u005f_proto__":{"x":1}}')).toContain(
      '(not valid JSON: the key "__proto__" is not allowed)',
    );
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('truncates long strings in errors', () => {
    expect(() => call('typed', 's', 'x'.repeat(100), 1, true, {}, [])).toThrow(
      `typed: argument 2 (i) expected an integer, got the string "${'x'.repeat(57)}..."`,
    );
  });
});

describe('arity, defaults and overloads', () => {
  it('fills defaults of omitted optional arguments, and of null/undefined ones', () => {
    expect(call('list_things', {}, 'c')).toEqual([{}, 'c', 0, 1000]);
    expect(call('list_things', {}, 'c', undefined, '5')).toEqual([{}, 'c', 0, 5]);
    expect(call('list_things', '{"a":1}', 'c', null, null)).toEqual([{ a: 1 }, 'c', 0, 1000]);
  });

  it('names the missing argument', () => {
    expect(() => call('list_things', {})).toThrow(
      'list_things: argument 2 (name) is missing: expected a string',
    );
    expect(() => call('list_things', undefined, 'c')).toThrow(
      'list_things: argument 1 (query) is missing: expected a hash or the JSON text of an object',
    );
  });

  it('refuses too many arguments', () => {
    expect(() => call('list_things', {}, 'c', 1, 2, 3)).toThrow(
      'list_things: argument 5 is not expected: list_things takes 2 to 4 arguments, got 5',
    );
    expect(() => call('attach_thing', 1)).toThrow(
      'function attach_thing is only available in the input variables of a manual task',
    );
    expect(() => fn('whoami').call(env, 1)).toThrow(
      'whoami: argument 1 is not expected: whoami takes no arguments, got 1',
    );
  });

  it('resolves overloads by arity', () => {
    expect(call('P_log', 'hi')).toBe('FINEST hi');
    expect(call('P_log', 'INFO', 'hi')).toBe('INFO hi');
    expect(() => call('P_log')).toThrow('P_log: argument 1 (message) is missing: expected a string');
    expect(() => call('P_log', 'a', 'b', 'c')).toThrow(
      'P_log: argument 3 is not expected: P_log takes 1 to 2 arguments, got 3',
    );
  });

  it('resolves overloads by type: the first form whose arguments coerce', () => {
    expect(call('import_things', 'f', { separator: ';' })).toBe('options {"separator":";"} undefined');
    expect(call('import_things', 'f', '{"format":"JSON"}', 'true')).toBe('options {"format":"JSON"} true');
    expect(call('import_things', 'f', ';', false)).toBe('separator ; false');
    // A string parameter takes a sequence as its JSON text, so the deprecated form catches it.
    expect(call('import_things', 'f', [1])).toBe('separator [1] undefined');
    expect(() => call('import_things', 'f', () => 1)).toThrow(
      'import_things: argument 2 (options) expected a hash or the JSON text of an object, got a method',
    );
  });

  it('passes variadic arguments flattened, each coerced', () => {
    expect(call('aggregate', 'c', '{"$match":{}}', [{ $limit: 1 }])).toEqual([
      'c',
      { $match: {} },
      [{ $limit: 1 }],
    ]);
    expect(() => call('aggregate', 'c')).toThrow(
      'aggregate: argument 2 (pipeline) is missing: expected a hash or the JSON text of an object, or a sequence or the JSON text of an array',
    );
    expect(() => call('aggregate', 'c', {}, 'nope')).toThrow(
      'aggregate: argument 3 (pipeline) expected a hash',
    );
  });

  it('keeps a value of a union type as it is, else converts to the first type that fits', () => {
    expect(call('R_read_things', 'abc')).toEqual(['abc']);
    expect(call('R_read_things', '["a","b"]')).toEqual(['["a","b"]']);
    expect(call('R_read_things', 7)).toEqual([7]);
    expect(call('R_read_things', ['a'])).toEqual([['a']]);
    expect(call('R_read_things', true)).toEqual(['true']);
  });
});

describe('names, aliases and the scope', () => {
  it('answers undefined for unknown names', () => {
    expect(registry.bind(ctx).get('no_such_function')).toBeUndefined();
  });

  it('binds aliases to the same function, naming the alias in errors', () => {
    expect(call('read_things', 'x')).toEqual(['x']);
    expect(() => call('read_things', {})).not.toThrow();
    expect(() => call('read_things')).toThrow('read_things: argument 1 (id) is missing');
    expect(registry.get('read_things')?.name).toBe('R_read_things');
  });

  it('gives the callable the context and the env of the call', () => {
    expect(call('whoami')).toBe('default/t/42');
    expect((fn('whoami') as () => unknown)()).toBe('default/template/undefined');
  });

  it('returns the same callable for repeated lookups in one scope', () => {
    const scope = registry.bind(ctx);
    expect(scope.get('whoami')).toBe(scope.get('whoami'));
  });

  it('refuses duplicate names', () => {
    expect(() => new FunctionRegistry([specs[0]!, specs[0]!])).toThrow(
      'function registry: typed is declared twice',
    );
  });

  it('checks declarations', () => {
    const base = { group: 'Utilities' as const, rights: 'none' as const, doc: '', returns: '' };
    const impl = () => 1;
    expect(() => defineFunction({ ...base, name: 'bad name', forms: [{ params: [], impl }] })).toThrow(
      'invalid function name',
    );
    expect(() =>
      defineFunction({
        ...base,
        name: 'f',
        forms: [
          {
            params: [
              { name: 'a', type: 'string', optional: true },
              { name: 'b', type: 'string' },
            ],
            impl,
          },
        ],
      }),
    ).toThrow('defineFunction(f): required parameter b follows an optional one');
    expect(() =>
      defineFunction({
        ...base,
        name: 'f',
        forms: [{ params: [{ name: 'a', type: 'string', default: 'x' }], impl }],
      }),
    ).toThrow('defineFunction(f): parameter a has a default but is required');
    expect(() =>
      defineFunction({
        ...base,
        name: 'f',
        forms: [
          {
            params: [
              { name: 'a', type: 'string', variadic: true },
              { name: 'b', type: 'string' },
            ],
            impl,
          },
        ],
      }),
    ).toThrow('defineFunction(f): only the last parameter may be variadic');
    expect(() => defineFunction({ ...base, name: 'f', forms: [] })).toThrow('defineFunction(f): no form');
    expect(() =>
      defineFunction({ ...base, group: 'Nope' as 'Utilities', name: 'f', forms: [{ params: [], impl }] }),
    ).toThrow('defineFunction(f): unknown group Nope');
  });
});

describe('availability by surface and user', () => {
  it('in a web interface, only webInterface functions run; the others exist but fail', () => {
    const web = createExecutionContext({ surface: 'web-interface' });
    expect(fn('list_things', web).call(env, {}, 'c')).toEqual([{}, 'c', 0, 1000]);
    const typed = fn('typed', web);
    expect(() => typed.call(env)).toThrow(
      new FunctionUnavailableError('typed', 'function typed is not available in a web interface'),
    );
    expect(() => typed.call(env)).toThrow(/^function typed is not available in a web interface$/);
  });

  it('manual-task-only functions run only in manual-task input', () => {
    const manual = createExecutionContext({ surface: 'manual-task-input' });
    expect(fn('attach_thing', manual).call(env)).toBe('attached');
    expect(() => fn('attach_thing').call(env)).toThrow(
      'function attach_thing is only available in the input variables of a manual task',
    );
  });

  it('admin-only functions check the current user at call time', () => {
    const c = createExecutionContext({ user: { id: 1, login: 'u', isAdmin: false } });
    const f = fn('impersonate_thing', c);
    expect(() => f.call(env)).toThrow('Impersonification is not allowed for user.');
    c.user = { id: 2, login: 'admin', isAdmin: true };
    expect(f.call(env)).toBe('done');
    expect(() => fn('impersonate_thing', createExecutionContext()).call(env)).toThrow(
      'impersonate_thing: this function needs a connected user; the script runs anonymously',
    );
  });
});

describe('the library', () => {
  it('binds every function of the library through bind(ctx)', () => {
    const scope = bind(createExecutionContext());
    for (const name of defaultRegistry().names()) expect(typeof scope.get(name)).toBe('function');
  });
});
