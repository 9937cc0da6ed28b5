/**
 * Issue 13, quadratic number formatting: a number text with a huge exponent or digit count is
 * refused by name (docs/template.md "Number limits") instead of blocking the event loop for
 * minutes or failing with an internal BigInt error; numbers within the limit print at once.
 */
import { describe, expect, it } from 'vitest';
import { evalHost } from '../../src/hosts/eval-host.js';
import { describeEachEngine } from '../support/engines.js';
import { useServer } from '../server/support.js';
import { evalOnServer, firstLine, renderCli } from './support.js';

const beyond = (text: string) =>
  `?number: the exponent of "${text}" is beyond ±100000 (the limit for one number)`;

/** [template, first line of the error] */
const REFUSED: [string, string][] = [
  ['${"1e300000"?number?c}', beyond('1e300000')],
  ['${"1e1000000"?number?c}', beyond('1e1000000')],
  ['${"1e999999999"?number?c}', beyond('1e999999999')],
  ['${"-2.5E-999999999999999999999"?number}', beyond('-2.5E-999999999999999999999')],
  [
    '${"1"?left_pad(100001, "7")?number}',
    `?number: "${'7'.repeat(64)}…" has more than 100000 digits (the limit for one number)`,
  ],
  [
    '${("1e60000"?number * "1e60000"?number)?c}',
    'Arithmetic operation failed: the result would have an exponent or a digit count beyond 100000 (the limit for one number)',
  ],
  [
    '<#assign x = "1.5"?number><#list 1..30 as i><#assign x = x * x></#list>${x}',
    'Arithmetic operation failed: the result would have an exponent or a digit count beyond 100000 (the limit for one number)',
  ],
  ['${"[1e999999999]"?eval_json[0]}', 'Failed to "?eval_json" string with this error:'],
];

/** [template, output] */
const ALLOWED: [string, string][] = [
  ['${"1e100000"?number?c?length?c}', '100001'],
  ['${"1e-100000"?number?c} ${"1.5e99999"?number?string("0.00E0")}', '0 1.50E99999'],
  ['${("1e49999"?number * "1e50000"?number)?c?length?c}', '100000'],
  ['${"123.4500"?number?c} ${"1e3"?number?c}', '123.45 1000'],
];

describe('number limits: flowmark render', () => {
  it.each(REFUSED)('refuses %s', async (template, message) => {
    const r = await renderCli(template);
    expect(firstLine(r.err)).toBe(message);
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(5000);
  });

  it.each(ALLOWED)('renders %s', async (template, output) => {
    const r = await renderCli(template);
    expect(r.err).toBe('');
    expect(r.out).toBe(output);
    expect(r.ms).toBeLessThan(5000);
  });

  it('names the limit in a ?eval_json error', async () => {
    const r = await renderCli('${"[1e999999999]"?eval_json[0]}');
    expect(r.err).toContain(
      'the exponent of "1e999999999" is beyond ±100000 (the limit for one number) at line 1, column 13',
    );
  });
});

describeEachEngine('number limits: POST /api/v1/eval', (engine) => {
  const server = useServer(engine, (platform) => ({ hosts: evalHost(platform) }));

  it.each(REFUSED.slice(0, 3))('refuses %s, /health answering', async (template, message) => {
    const r = await evalOnServer(server, template);
    expect(firstLine(r.error!.message)).toBe(message);
    expect(r.ms).toBeLessThan(5000);
  });
});
