/**
 * The Request and User functions and the internal parameters as scripts use them: real templates
 * rendered by the template engine over a scope of the internal parameters and the bound library.
 */
import { beforeAll, expect, it } from 'vitest';
import type { ExecutionContext } from '../../../src/functions/context.js';
import { internalParameters } from '../../../src/functions/request/index.js';
import { bind } from '../../../src/functions/registry.js';
import { evaluate } from '../../../src/hosts/evaluate.js';
import { compile } from '../../../src/template/index.js';
import { describeEachEngine } from '../../support/engines.js';
import { buildWorld, contextIn, type World } from '../../platform/world.js';

async function render(
  ctx: ExecutionContext,
  source: string,
  data: Record<string, unknown> = {},
): Promise<string> {
  const internal = await internalParameters(ctx);
  const functions = bind(ctx);
  const scope = {
    get: (name: string) =>
      name.startsWith('P_') && internal.get(name) !== undefined
        ? internal.get(name)
        : Object.hasOwn(data, name)
          ? data[name]
          : functions.get(name),
  };
  return compile(source).render(scope, { locale: ctx.locale, timeZone: ctx.timeZone });
}

describeEachEngine('Request and User functions in templates', (engine) => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld(engine.store);
  });

  it('reads the internal parameters', async () => {
    const ctx = await contextIn(w, { user: 'ann', mode: 'LIVE', project: w.ids.project });
    expect(
      await render(
        ctx,
        '${(P_customer == "' +
          w.account +
          '")?c} ${P_mode} ${P_user.login} ${P_user.extended.dept} ' +
          '${P_user.delegators[0].login} ${P_urls.domain} ${P_version} ${P_locks?size} [${P_message}] ${(P_request??)?c}',
      ),
    ).toBe('true LIVE ann sales carl flow.example.com 1.0 0 [] false');
    const anonymous = await contextIn(w, { mode: 'TEST' });
    expect(await render(anonymous, '<#if P_user??>${P_user.login}<#else>nobody</#if>')).toBe('nobody');
  });

  it('runs a script that counts, checks rights, lists lane users and logs', async () => {
    const ctx = await contextIn(w, { user: 'ann', mode: 'TEST', project: w.ids.project });
    const script =
      '<#assign n = next_value("tickets")>#${n} ' +
      '<#if has_right(clerks)>clerk<#else>not a clerk</#if> ' +
      '<#list get_lane_users(pool, clerks) as u>${u.login}<#sep>,</#list> ' +
      '${get_user_data("carl").name} ${get_i18n("greeting", "?", "en")} ' +
      '${P_log("INFO", "ticket " + n)} [${P_message}]';
    expect(await render(ctx, script, { pool: w.ids.pool, clerks: w.ids.clerks })).toBe(
      '#1 clerk ann,carl Carl Clerk Hello from Orders ticket 1 [ticket 1]',
    );
    expect(await render(ctx, script, { pool: w.ids.pool, clerks: w.ids.clerks })).toMatch(/^#2 /);
  });

  it('locks, records P_locks and unlocks', async () => {
    const ctx = await contextIn(w, { mode: 'LIVE' });
    expect(
      await render(
        ctx,
        '${R_lock("stock", 0)} ${P_locks?size} ${P_locks[0].name} ${(P_locks[0].end??)?c} ' +
          '${R_unlock("stock")} ${(P_locks[0].end??)?c}',
      ),
    ).toBe('stock 1 stock false stock true');
  });

  it('passes JSON text arguments and reads results as hashes', async () => {
    const ctx = await contextIn(w, { user: 'admin', mode: 'LIVE', project: w.ids.project });
    expect(
      await render(
        ctx,
        '<#assign m = P_change_metadata("carl", "skills.0", "{\\"name\\": \\"sql\\"}")>${m.skills[0].name} ' +
          '${save_user_metadata("carl", "{\\"level\\": 3}")} ${get_user_metadata("carl").level} ' +
          '${get_custom_list("countries")[1].label} ${get_project_metadata().owner}',
      ),
    ).toBe('sql carl 3 Japan sales');
  });

  it('throw ends the script unless recovered', async () => {
    const ctx = await contextIn(w, { mode: 'TEST' });
    expect(await render(ctx, '<#attempt>${throw("Order 42 is invalid")}<#recover>recovered</#attempt>')).toBe(
      'recovered',
    );
    await expect(render(ctx, 'a${throw("Order 42 is invalid")}b')).rejects.toThrow('Order 42 is invalid');
    await expect(render(ctx, '${impersonate("ann")}')).rejects.toThrow(
      'impersonate: this function needs a connected user; the script runs anonymously',
    );
  });

  it('are what the eval host gives every script, ahead of data variables', async () => {
    const ctx = await contextIn(w, { user: 'ann', mode: 'ACCEPTANCE', project: w.ids.project });
    const { output } = await evaluate(
      '${P_mode} ${P_user.name} ${P_version} ${P_urls.live?starts_with("https://")?c} ${P_other} ${get_lanes()?size}',
      ctx,
      { P_mode: 'LIVE', P_user: { name: 'spoofed' }, P_other: 'data' },
    );
    expect(output).toBe('ACCEPTANCE Ann Smith 1.1 true data 0');
    const anonymous = await contextIn(w, { mode: 'TEST' });
    const spoof = { P_user: { login: 'admin' }, P_request: { id: 'x' }, P_result: 'data' };
    expect(
      (await evaluate('${P_user???c} ${P_request???c} ${P_customer} ${P_result}', anonymous, spoof)).output,
    ).toBe(`false false ${w.account} data`);
  });
});
