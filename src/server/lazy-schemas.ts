/**
 * Route schemas compiled on first use. Fastify compiles every route's validators (Ajv, through
 * @fastify/ajv-compiler) and response serializers (fast-json-stringify) when the app gets ready:
 * about a second of CPU for this server's routes, paid by every start of every server process,
 * most of it for routes the process never serves. Here each validator and serializer Fastify asks
 * for is a stand-in that compiles the real one — with Fastify's own default compilers and the
 * server's Ajv and serializer options, so the same coercion, defaults and error messages — on its
 * first call, and then calls it.
 *
 * What a stand-in keeps of the real validator: Fastify reads `validate.errors` after a failed
 * validation, and calls a validator that has `schemaEnv` (Ajv's) with the request as its parent,
 * so that coercing a whole request part (a query string) can replace it.
 *
 * A schema Ajv cannot compile fails its route's first request (500) instead of the start:
 * `compileEverySchema(app)` compiles them all, for the test that guards this.
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

/** What Fastify gives a validator compiler: one request part's schema of a route. */
interface ValidatorRoute {
  schema: unknown;
  method: string;
  url: string;
  httpPart?: string;
}

/** An Ajv validate function, as far as Fastify uses it. */
type Validate = ((data: unknown, parent?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Serialize = (data: unknown) => string;
type ValidatorCompiler = (route: ValidatorRoute) => Validate;
type SerializerCompiler = (route: unknown) => Serialize;

// Fastify's own copies of its default compilers, whichever version it depends on.
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));

/** The compilers of the apps made with lazyCompilers: every stand-in not compiled yet. */
const waiting = new WeakMap<object, Set<() => unknown>>();

export interface LazyCompilers {
  /** Fastify's `schemaController` option. */
  schemaController: NonNullable<FastifyServerOptions['schemaController']>;
  /** Ties the stand-ins to `app`, for compileEverySchema. */
  attach(app: object): void;
}

export function lazyCompilers(): LazyCompilers {
  const pending = new Set<() => unknown>();
  let validatorSelector: ((schemas: unknown, options: unknown) => ValidatorCompiler) | undefined;
  let serializerSelector: ((schemas: unknown, options: unknown) => SerializerCompiler) | undefined;

  // Fastify calls a factory once per set of shared schemas (app.addSchema) and options; the
  // real factory, and Ajv with it, is built when the first stand-in compiles.
  const buildValidator = (schemas: unknown, options: unknown) => {
    let compiler: ValidatorCompiler | undefined;
    const real = () => {
      validatorSelector ??= fromFastify('@fastify/ajv-compiler')();
      return (compiler ??= validatorSelector!(schemas, options));
    };
    return (route: ValidatorRoute): Validate => standInValidator(() => real()(route), pending);
  };
  const buildSerializer = (schemas: unknown, options: unknown) => {
    let compiler: SerializerCompiler | undefined;
    const real = () => {
      serializerSelector ??= fromFastify('@fastify/fast-json-stringify-compiler')();
      return (compiler ??= serializerSelector!(schemas, options));
    };
    return (route: unknown): Serialize => standInSerializer(() => real()(route), pending);
  };
  return {
    // asserted: @fastify/ajv-compiler's types have a compiler take a bare schema, Fastify gives it
    // the route's definition (lib/validation.js)
    schemaController: {
      compilersFactory: { buildValidator, buildSerializer },
    } as LazyCompilers['schemaController'],
    attach: (app) => {
      waiting.set(app, pending);
      asDefaultCompiler(app);
    },
  };
}

/**
 * Fastify takes a compiler given in `compilersFactory` for a custom one, and then no longer
 * lowercases the property names of a headers schema before compiling it (lib/validation.js):
 * these stand in for its defaults, so its root schema controller is told they are not custom
 * (the plugins' controllers, made later, copy the flag).
 */
function asDefaultCompiler(app: object): void {
  const key = Object.getOwnPropertySymbols(app).find((s) => s.description === 'fastify.schemaController');
  const controller: unknown = key && Reflect.get(app, key);
  if (typeof controller !== 'object' || controller === null || !('isCustomValidatorCompiler' in controller))
    throw new Error('lazyCompilers: no schema controller found on the Fastify app (has Fastify changed?)');
  Reflect.set(controller, 'isCustomValidatorCompiler', false);
}

/** `compile` run at the first call of the function it returns, which `pending` lists until then. */
function onFirstUse<T>(compile: () => T, pending: Set<() => unknown>): () => T {
  let real: T | undefined;
  const load = (): T => {
    if (real === undefined) {
      real = compile();
      pending.delete(load);
    }
    return real;
  };
  pending.add(load);
  return load;
}

function standInValidator(compile: () => Validate, pending: Set<() => unknown>): Validate {
  const load = onFirstUse(compile, pending);
  let compiled: Validate | undefined;
  const validate = (data: unknown, parent?: unknown) => (compiled = load())(data, parent);
  return Object.defineProperties(validate, {
    errors: { get: () => compiled?.errors },
    schemaEnv: { get: () => load().schemaEnv },
  });
}

function standInSerializer(compile: () => Serialize, pending: Set<() => unknown>): Serialize {
  const load = onFirstUse(compile, pending);
  return (data: unknown) => load()(data);
}

/** Compiles every schema of `app` not compiled yet (its routes must be ready); how many. */
export function compileEverySchema(app: object): number {
  const pending = waiting.get(app);
  if (!pending) throw new Error('compileEverySchema: the app was not made with lazyCompilers');
  let n = 0;
  for (const load of [...pending]) {
    load();
    n++;
  }
  return n;
}
