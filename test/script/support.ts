/**
 * Running the same call as a template and as a script through the eval host, to compare what
 * they give. Template results are printed as JSON (P_json_stringify), script results are
 * JSON.stringify'd inside the sandbox, so both compare as parsed values.
 */
import { expect } from 'vitest';
import type { ExecutionContext } from '../../src/functions/context.js';
import { isSpecWording } from '../../src/functions/errors.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import type { TemplateError } from '../../src/template/index.js';

type Data = Record<string, unknown>;

/** A script body that FreeMarker leaves alone (template literals may hold any `${…}`). */
export function scriptTag(js: string): string {
  return `<@script env="js"><#noparse>${js}</#noparse></@script>`;
}

/**
 * The value of a template expression: text as it is (P_json_stringify would read JSON-looking
 * text such as "1.0" as JSON), numbers and booleans with ?c, hashes and sequences as JSON.
 */
export async function viaTemplate(ctx: ExecutionContext, expr: string, data: Data = {}): Promise<unknown> {
  const { output } = await evaluate(
    `<#assign v = ${expr}><#if v?is_number || v?is_boolean>J\${v?c}<#elseif v?is_string>S\${v}<#else>J\${P_json_stringify(v)}</#if>`,
    ctx,
    data,
  );
  return output.startsWith('S') ? output.slice(1) : JSON.parse(output.slice(1));
}

/** The value of a script expression (undefined becomes null). */
export async function viaScript(ctx: ExecutionContext, expr: string, data: Data = {}): Promise<unknown> {
  const { output } = await evaluate(
    scriptTag(
      `const value = (${expr});\nRMPData.setOutput(JSON.stringify(value === undefined ? null : value));`,
    ),
    ctx,
    data,
  );
  return JSON.parse(output);
}

/** Both, checked equal; resolves to the value. */
export async function same(
  ctx: ExecutionContext,
  templateExpr: string,
  scriptExpr: string,
  data: Data = {},
): Promise<unknown> {
  const t = await viaTemplate(ctx, templateExpr, data);
  const s = await viaScript(ctx, scriptExpr, data);
  expect(withoutNullFields(s)).toEqual(t);
  return t;
}

/**
 * The value without object fields holding null: a template has no null (a hash field holding
 * null is missing there), while a script sees the function's null as it is.
 */
export function withoutNullFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullFields);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, withoutNullFields(v)]),
    );
  return value;
}

/** The message of the error a source raises (its first line: without the template's location). */
export async function errorOf(ctx: ExecutionContext, source: string, data: Data = {}): Promise<string> {
  try {
    await evaluate(source, ctx, data);
  } catch (e) {
    return (e as TemplateError).message.split('\n')[0]!;
  }
  throw new Error(`did not fail: ${source}`);
}

/**
 * The error of a template call and of a script call: the same reason, each prefixed with the name
 * the caller used (`list_objects: …` / `RMPCollection.find: …`), the script's with its position.
 */
export async function sameError(
  ctx: ExecutionContext,
  templateExpr: string,
  scriptExpr: string,
  data: Data = {},
): Promise<string> {
  const t = await errorOf(ctx, '${P_json_stringify(' + templateExpr + ')}', data);
  const s = await errorOf(ctx, scriptTag(`${scriptExpr};`), data);
  const tName = /^[A-Za-z_0-9]+/.exec(templateExpr)![0];
  const sName = /^RMP[A-Za-z]+\.[A-Za-z0-9]+/.exec(scriptExpr)![0];
  // A message in the spec's part-7 wording reads without the function's name (docs/functions.md, "Errors").
  const reason = isSpecWording(t) ? t : t.slice(tName.length + 2);
  expect(isSpecWording(t) || t.startsWith(`${tName}: `), t).toBe(true);
  expect(s).toMatch(/ \(script line 1, column \d+\)$/);
  expect(s.replace(/ \(script line 1, column \d+\)$/, '')).toBe(`${sName}: ${reason}`);
  return reason;
}

/** Drops `_id` fields (documents saved by each side get their own). */
export function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([k]) => k !== '_id')
        .map(([k, v]) => [k, withoutIds(v)]),
    );
  return value;
}
