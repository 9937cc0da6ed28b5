import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { createExecutionContext, type ExecutionContext } from '../../src/functions/context.js';
import { defaultRegistry, type BoundFunction, type CallEnv } from '../../src/functions/registry.js';

// `call` is synchronous, as a template's call of a loaded function is: the registry imports a
// function's module on its first call (a Promise then; test/functions/declarations.test.ts).
await defaultRegistry().loadAll();

/** A context with a fixed clock and scripted randomness (tests never depend on the real ones). */
export function testContext(fields: Partial<ExecutionContext> = {}): ExecutionContext {
  return createExecutionContext({
    clock: () => 1_705_276_800_123,
    random: sequence([0.3, 0.6]),
    randomBytes: (n) => new Uint8Array(n).fill(7),
    ...fields,
  });
}

/** ctx.random that gives these values in turn (then repeats the last). */
export function sequence(values: number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)]!;
}

export function envWith(variables: Record<string, unknown> = {}): CallEnv {
  return {
    getVariable: (name) =>
      Object.prototype.hasOwnProperty.call(variables, name) ? variables[name] : undefined,
    templateName: 'test',
    locale: 'en_US',
    timeZone: 'UTC',
  };
}

/** Calls a library function by name, as a template would. */
export function call(
  name: string,
  args: unknown[],
  ctx: ExecutionContext = testContext(),
  env: CallEnv = envWith(),
): unknown {
  const fn = defaultRegistry().bind(ctx).get(name) as BoundFunction | undefined;
  if (!fn) throw new Error(`no function ${name}`);
  return fn.call(env, ...args);
}

/** The message of the error a call throws (fails the test when it does not throw). */
export function errorOf(name: string, args: unknown[], ctx?: ExecutionContext, env?: CallEnv): string {
  try {
    call(name, args, ctx, env);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${name}(${JSON.stringify(args)}) did not throw`);
}

export interface JavaCase {
  call: [string, ...unknown[]];
  context?: { timeZone?: string; locale?: string; clock?: number; random?: number[]; randomBytes?: string };
  expect?: unknown;
  error?: string;
}

export function fixture<T = JavaCase[]>(name: string): T {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/functions/java/${name}.json`, import.meta.url), 'utf8'),
  ) as T;
}

export function contextOf(c: JavaCase): ExecutionContext {
  const f = c.context ?? {};
  const bytes = f.randomBytes === undefined ? undefined : Buffer.from(f.randomBytes, 'base64');
  return testContext({
    ...(f.timeZone ? { timeZone: f.timeZone } : {}),
    ...(f.locale ? { locale: f.locale } : {}),
    ...(f.clock !== undefined ? { clock: () => f.clock! } : {}),
    ...(f.random ? { random: sequence(f.random) } : {}),
    ...(bytes ? { randomBytes: (n: number) => new Uint8Array(bytes.subarray(0, n)) } : {}),
  });
}

/** A readable test name for a fixture case. */
export function caseName(c: JavaCase): string {
  const text = JSON.stringify(c.call).replace(/-----BEGIN[^"]*?-----END[A-Z ]*-----/g, '<pem>');
  const ctx = c.context ? ` ${JSON.stringify(c.context)}` : '';
  return (text.length > 140 ? `${text.slice(0, 137)}...` : text) + ctx;
}

/**
 * Checks flowmark against the Java answer: the same value, or an error whose message contains
 * Java's message (the text after the exception class name).
 */
export function checkJavaCase(c: JavaCase): void {
  const [name, ...args] = c.call;
  const ctx = contextOf(c);
  if (c.error !== undefined) {
    const javaMessage = c.error.replace(/^[\w.$]+: /, '');
    expect(errorOf(name, args, ctx)).toContain(javaMessage);
  } else {
    expect(call(name, args, ctx)).toEqual(c.expect);
  }
}

/** The Java fixtures of the Utilities group that the script backends replay, by file. */
export const UTILITY_FIXTURES: Array<[string, () => JavaCase[]]> = [
  ['aes', () => Object.values(fixture<Record<string, JavaCase[]>>('aes')).flat()],
  ['dates', () => fixture('dates')],
  ['digests', () => fixture('digests')],
  ['encodings', () => fixture('encodings')],
  ['hmac', () => fixture('hmac')],
  ['numbers', () => fixture('numbers')],
  ['rsa', () => fixture<{ cases: JavaCase[] }>('rsa').cases],
];

/**
 * Cases that can run in one script: the same context. Cases with scripted randomness run alone
 * (their random source is consumed call by call).
 */
export function groupByContext(cases: JavaCase[]): JavaCase[][] {
  const groups = new Map<string, JavaCase[]>();
  cases.forEach((c, i) => {
    const key =
      c.context?.random !== undefined || c.context?.randomBytes !== undefined
        ? `alone ${i}`
        : JSON.stringify(c.context ?? {});
    groups.set(key, [...(groups.get(key) ?? []), c]);
  });
  return [...groups.values()];
}
