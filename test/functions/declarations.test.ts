/**
 * The registry works from the library's declarations (src/functions/declarations.ts, generated)
 * and imports a function's module on its first call (src/functions/lazy.ts): arguments, rights
 * and surface are checked from the declaration before the module loads, with the same errors;
 * the first call returns a Promise, later ones call the implementation directly.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createExecutionContext } from '../../src/functions/context.js';
import { DECLARED, MODULES } from '../../src/functions/declarations.js';
import { declarationsModule } from '../../src/functions/declarations-source.js';
import { declarationOf, type DeclaredFunction } from '../../src/functions/lazy.js';
import { libraryGroups } from '../../src/functions/library.js';
import {
  defineFunction,
  FunctionRegistry,
  FunctionUnavailableError,
  type BoundFunction,
  type CallEnv,
  type FunctionSpec,
} from '../../src/functions/registry.js';
import { compile } from '../../src/template/index.js';

const env: CallEnv = { getVariable: () => undefined, templateName: 't', locale: 'en_US', timeZone: 'UTC' };
const base = { group: 'Utilities' as const, doc: '', returns: 'string' };

const twice = defineFunction({
  ...base,
  name: 'twice',
  aliases: ['double'],
  rights: 'none',
  forms: [{ params: [{ name: 'n', type: 'integer' }], impl: (_c, [n]) => n * 2 }],
});
const greet = defineFunction({
  ...base,
  name: 'greet',
  rights: 'none',
  flags: { webInterface: true },
  forms: [
    {
      params: [
        { name: 'who', type: 'string' },
        { name: 'how', type: 'string', optional: true, default: 'hello' },
      ],
      impl: (_c, [who, how]) => `${how} ${who}`,
    },
  ],
});
const secret = defineFunction({
  ...base,
  name: 'secret',
  rights: 'admin',
  forms: [{ params: [], impl: () => 'secret' }],
});
const fails = defineFunction({
  ...base,
  name: 'fails',
  rights: 'none',
  forms: [
    {
      params: [],
      impl: () => {
        throw new Error('fails: it always does');
      },
    },
  ],
});

/** A lazy registry over two fake modules, counting their imports. */
function lazyRegistry(
  exportsOf: Record<string, FunctionSpec[]> = { 'm/a': [twice, greet, fails], 'm/b': [secret] },
) {
  const imports: string[] = [];
  const declared: DeclaredFunction[] = [
    { module: 'm/a', ...declarationOf(twice) },
    { module: 'm/a', ...declarationOf(greet) },
    { module: 'm/a', ...declarationOf(fails) },
    { module: 'm/b', ...declarationOf(secret) },
  ];
  const importers = Object.fromEntries(
    Object.keys(exportsOf).map((m) => [
      m,
      () => {
        imports.push(m);
        return Promise.resolve({ specs: exportsOf[m], unrelated: 42 });
      },
    ]),
  );
  return { registry: FunctionRegistry.lazy(declared, importers), imports };
}

const errorOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('did not throw');
};

describe('the generated declarations', () => {
  it('are what npm run docs:functions generates from the group modules (run it after changing a declaration)', async () => {
    const committed = readFileSync(new URL('../../src/functions/declarations.ts', import.meta.url), 'utf8');
    expect(committed).toBe(await declarationsModule());
  });

  it('declare every function of the library, in library order, each with an importer of its module', () => {
    expect(DECLARED.map((d) => d.name)).toEqual(
      libraryGroups()
        .flat()
        .map((s) => s.name),
    );
    for (const d of DECLARED) expect(typeof MODULES[d.module]).toBe('function');
    expect(DECLARED.find((d) => d.name === 'P_json_parse')?.module).toBe('utilities/json');
  });
});

describe('a registry of declarations', () => {
  const ctx = createExecutionContext();

  it('checks arguments from the declaration without importing the module, with the same errors', () => {
    const { registry, imports } = lazyRegistry();
    const eager = new FunctionRegistry([twice, greet, fails, secret]);
    for (const args of [[], [1, 2], ['x'], [{}]]) {
      const lazyError = errorOf(() => registry.invoke(ctx, 'twice', args, env));
      expect(lazyError).toBe(errorOf(() => eager.invoke(ctx, 'twice', args, env)));
    }
    expect(errorOf(() => registry.invoke(ctx, 'twice', ['x'], env))).toBe(
      'twice: argument 1 (n) expected an integer, got the string "x"',
    );
    expect(errorOf(() => registry.invoke(ctx, 'double', [], env))).toBe(
      'double: argument 1 (n) is missing: expected an integer',
    );
    expect(imports).toEqual([]);
  });

  it('checks rights and the surface before importing the module', () => {
    const { registry, imports } = lazyRegistry();
    expect(errorOf(() => registry.invoke(ctx, 'secret', [], env))).toBe(
      'secret: this function needs a connected user; the script runs anonymously',
    );
    const web = createExecutionContext({ surface: 'web-interface' });
    expect(() => registry.invoke(web, 'twice', [1], env)).toThrow(
      new FunctionUnavailableError('twice', 'function twice is not available in a web interface'),
    );
    expect(imports).toEqual([]);
  });

  it('imports the module on the first call (a Promise), then calls its functions directly', async () => {
    const { registry, imports } = lazyRegistry();
    const scope = registry.bind(ctx);
    const f = scope.get('twice') as BoundFunction;
    const first = f.call(env, 21);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe(42);
    expect(f.call(env, '4')).toBe(8);
    // the other functions of the module, bound before or after, are loaded too
    expect((scope.get('greet') as BoundFunction).call(env, 'you')).toBe('hello you');
    expect(registry.invoke(ctx, 'double', [5], env)).toBe(10);
    expect(registry.bind(ctx).get('greet')).not.toBe(scope.get('greet'));
    expect(imports).toEqual(['m/a']);
    // an implementation's error is the same as an eager registry's
    expect(errorOf(() => registry.invoke(ctx, 'fails', [], env))).toBe('fails: it always does');
  });

  it("rejects the first call with the implementation's own error", async () => {
    const { registry } = lazyRegistry();
    await expect(registry.invoke(ctx, 'fails', [], env)).rejects.toThrow(/^fails: it always does$/);
  });

  it('imports each module once, however many first calls are waiting', async () => {
    const { registry, imports } = lazyRegistry();
    const results = await Promise.all([
      registry.invoke(ctx, 'twice', [1], env),
      registry.invoke(ctx, 'greet', ['a', 'hi'], env),
      registry.invoke(ctx, 'twice', [2], env),
    ]);
    expect(results).toEqual([2, 'hi a', 4]);
    expect(imports).toEqual(['m/a']);
    await registry.loadAll();
    expect(imports).toEqual(['m/a', 'm/b']);
  });

  it('refuses a module whose declaration differs from the generated one', async () => {
    const changed = defineFunction({
      ...base,
      name: 'twice',
      rights: 'none',
      forms: [{ params: [{ name: 'n', type: 'number' }], impl: (_c, [n]) => n * 2 }],
    });
    const { registry } = lazyRegistry({ 'm/a': [changed, greet, fails], 'm/b': [secret] });
    await expect(registry.invoke(ctx, 'greet', ['a'], env)).rejects.toThrow(
      'function registry: functions/m/a does not declare twice as src/functions/declarations.ts says; run npm run docs:functions',
    );
    const { registry: missing } = lazyRegistry({ 'm/a': [twice, fails], 'm/b': [secret] });
    await expect(missing.invoke(ctx, 'twice', [1], env)).rejects.toThrow(
      'function registry: functions/m/a does not declare greet as src/functions/declarations.ts says; run npm run docs:functions',
    );
  });
});

describe("the library's registry in a template", () => {
  const render = (source: string, registry: FunctionRegistry) =>
    compile(source, { name: 't' }).render(registry.bind(createExecutionContext()), {
      locale: 'en_US',
      timeZone: 'UTC',
    });
  const eager = new FunctionRegistry(libraryGroups().flat());

  it('renders the first call of a function as an eager registry does', async () => {
    const source =
      '${P_json_stringify({"a": 1})} ${get_date(0)} ${P_json_stringify({"b": [2]})} ${get_date(86400, "dd/MM")}';
    const lazy = FunctionRegistry.lazy(DECLARED, MODULES);
    expect(await render(source, lazy)).toBe('{"a":1} 1970-01-01 {"b":[2]} 02/01');
    expect(await render(source, eager)).toBe('{"a":1} 1970-01-01 {"b":[2]} 02/01');
  });

  it('gives the same argument errors before and after the module loads', async () => {
    const source = '${get_date("soon")}';
    const message = await render(source, eager).catch((e: Error) => e.message);
    expect(message).toContain('get_date: argument 1 (seconds) expected an integer, got the string "soon"');
    const lazy = FunctionRegistry.lazy(DECLARED, MODULES);
    expect(await render(source, lazy).catch((e: Error) => e.message)).toBe(message);
    await render('${get_date(0)}', lazy);
    expect(await render(source, lazy).catch((e: Error) => e.message)).toBe(message);
  });
});
