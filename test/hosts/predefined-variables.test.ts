/**
 * The table of docs/platform.md ("Predefined variables per surface") against the code: every
 * surface is rendered with a probe that tells, for each variable of the table, whether it is
 * defined, and the answer must be the table's for the conditions the probe runs under. Every
 * P_ name the hosts define must have a row.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { renderRequest } from '../../src/cli/commands/render.js';
import { INTERNAL_PARAMETERS } from '../../src/functions/request/evaluation.js';
import { CompositeHost, WebInterfaceHost, type Exchange } from '../../src/hosts/index.js';
import { evaluate } from '../../src/hosts/evaluate.js';
import { describeEachEngine } from '../support/engines.js';
import { contextIn, NOW } from '../platform/world.js';
import { hostWorld, type HostWorld } from './support.js';

const SURFACES = ['eval', 'render', 'process', 'composite', 'web'] as const;
type SurfaceName = (typeof SURFACES)[number];
const CONDITIONS = [
  'yes',
  'user',
  'request',
  'result',
  'loop',
  'list loop',
  'manual',
  'branch',
  'caught',
  'body',
  '—',
];

const root = new URL('../../', import.meta.url);

/** The table: variable → surface → its cell. */
function documentedTable(): Map<string, Record<SurfaceName, string>> {
  const doc = readFileSync(new URL('docs/platform.md', root), 'utf8');
  const section = doc.slice(doc.indexOf('### Predefined variables per surface'));
  const rows = section.split('\n').filter((l) => /^\| `P_/.test(l));
  const table = new Map<string, Record<SurfaceName, string>>();
  for (const row of rows) {
    const cells = row
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const name = cells[0]!.replace(/`/g, '');
    const bySurface = Object.fromEntries(SURFACES.map((s, i) => [s, cells[i + 1]!])) as Record<
      SurfaceName,
      string
    >;
    for (const cell of Object.values(bySurface)) expect(CONDITIONS, `${name}: ${cell}`).toContain(cell);
    table.set(name, bySurface);
  }
  return table;
}

const table = documentedTable();
const names = [...table.keys()];

/** A template printing `name=true|false;` for every variable of the table. */
const PROBE = `<#list [${names.map((n) => `"${n}"`).join(', ')}] as n>\${n}=\${(.vars[n]??)?c};</#list>`;

function parseProbe(output: string): Record<string, boolean> {
  return Object.fromEntries(
    output
      .split(';')
      .filter((p) => p !== '')
      .map((p) => {
        const [name, value] = p.split('=');
        return [name!, value === 'true'];
      }),
  );
}

/** What the table says a probe on `surface` sees when the conditions `met` hold. */
function expected(surface: SurfaceName, met: readonly string[]): Record<string, boolean> {
  return Object.fromEntries(
    names.map((n) => {
      const cell = table.get(n)![surface];
      return [n, cell === 'yes' || met.includes(cell)];
    }),
  );
}

it('has a row for every P_ name the code defines', () => {
  for (const name of INTERNAL_PARAMETERS) expect(names).toContain(name);
  const sources = ['src/hosts/composite.ts', 'src/hosts/web-interface.ts', 'src/hosts/processes/runner.ts'];
  for (const file of sources) {
    const text = readFileSync(new URL(file, root), 'utf8');
    for (const [, name] of text.matchAll(/\b(P_[A-Za-z_]+)(?::|\s*=[^=])/g))
      expect(names, file).toContain(name);
  }
  expect(names.length).toBe(27);
});

it('holds for flowmark render (no platform, nobody connected)', async () => {
  expect(parseProbe(await renderRequest({ template: PROBE }))).toEqual(expected('render', []));
});

describeEachEngine('predefined variables per surface', (engine) => {
  let w: HostWorld;
  beforeAll(async () => {
    w = await hostWorld(engine.store);
  });

  it('hold for the eval host, connected or not', async () => {
    const connected = await contextIn(w, { user: 'ann' });
    expect(parseProbe((await evaluate(PROBE, connected)).output)).toEqual(expected('eval', ['user']));
    const anonymous = await contextIn(w, {});
    expect(parseProbe((await evaluate(PROBE, anonymous)).output)).toEqual(expected('eval', []));
  });

  it('hold for process steps: a first step, then a manual task looping over a list', async () => {
    const view = await w.host.start(w.account, {
      definition: {
        name: 'probe',
        steps: [
          { id: 1, input: { first: PROBE }, output: { output: PROBE } },
          { id: 2, type: 'manual', loop: { over: '["a", "b"]' }, input: { looping: PROBE } },
        ],
      },
      data: {},
      user: 'carl',
      mode: 'LIVE',
    });
    const data = view.request.data as Record<string, string>;
    expect(parseProbe(data.first!)).toEqual(expected('process', ['user', 'request']));
    expect(parseProbe(data.output!)).toEqual(expected('process', ['user', 'request', 'result']));
    expect(parseProbe(data.looping!)).toEqual(
      expected('process', ['user', 'request', 'result', 'loop', 'list loop', 'manual']),
    );
  });

  it('hold for a composite API, with a body and a caller, and anonymously without a body', async () => {
    await w.platform.compositeApis.create(w.account, {
      method: 'ANY',
      path: 'probe',
      isPublic: true,
      template: PROBE,
    });
    const host = new CompositeHost(w.platform, { clock: () => NOW });
    const exchange = (extra: Partial<Exchange>): Exchange => ({
      accountId: w.account,
      caller: null,
      method: 'POST',
      path: 'probe',
      headers: {},
      query: {},
      body: undefined,
      ...extra,
    });
    const ann = { accountId: w.account, user: { id: w.ids.ann, login: 'ann', isAdmin: false } };
    const withBody = await host.handle(exchange({ caller: ann, body: { a: 1 } }));
    expect(parseProbe(withBody.body as string)).toEqual(expected('composite', ['user', 'body']));
    const anonymous = await host.handle(exchange({ method: 'GET' }));
    expect(parseProbe(anonymous.body as string)).toEqual(expected('composite', []));
  });

  it('hold for a web interface', async () => {
    await w.platform.webInterfaceTemplates.set(w.account, w.ids.orders, PROBE);
    const host = new WebInterfaceHost(w.platform, { clock: () => NOW, random: () => 0.25 });
    const answer = await host.render({
      accountId: w.account,
      caller: { accountId: w.account, user: { id: w.ids.ann, login: 'ann', isAdmin: false } },
      method: 'GET',
      path: `webinterface/${w.ids.orders}`,
      headers: {},
      query: {},
      body: undefined,
      webInterfaceId: w.ids.orders,
    });
    expect(parseProbe(answer.body as string)).toEqual(expected('web', ['user']));
  });
});
