import { describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../../src/functions/registry.js';
import { call, errorOf, testContext } from '../helpers.js';
import { SPEC_2_1_WEB_INTERFACE } from '../../support/spec.js';

const SPEC_4_7 = [
  'bubble_babble',
  'cipher',
  'decipher',
  'generate_key',
  'csv_to_json',
  'json_to_csv',
  'load',
  'date_format',
  'date_offset',
  'get_date',
  'get_time',
  'now',
  'timestamp',
  'decode',
  'R_encode',
  'encrypt',
  'password_digest',
  'R_hmac_hash',
  'R_rsa_hash',
  'get_random',
  'get_random_gaussian',
  'uuid',
  'safe_get',
  'to_xml',
  'transpose',
  'P_json_accumulate',
  'P_json_accumulateAll',
  'P_json_parse',
  'P_json_put',
  'P_json_put_ext',
  'P_json_putAll',
  'P_json_remove',
  'P_json_remove_ext',
  'P_json_stringify',
  'P_markdown_to_html',
  'P_quoted',
  'P_to_array',
];
/** Spec 2.1's list, restricted to the Utilities group, plus P_quoted (hosts issue). */
const WEB_INTERFACE = [...SPEC_2_1_WEB_INTERFACE.filter((n) => SPEC_4_7.includes(n)), 'P_quoted'];

describe('the Utilities group', () => {
  const utilities = defaultRegistry()
    .list()
    .filter((f) => f.group === 'Utilities');

  it('declares every function of spec 4.7, and only those', () => {
    expect(utilities.map((f) => f.name).sort()).toEqual([...SPEC_4_7].sort());
  });

  it('flags exactly the web-interface functions of spec 2.1 (and P_quoted)', () => {
    expect(
      utilities
        .filter((f) => f.flags?.webInterface)
        .map((f) => f.name)
        .sort(),
    ).toEqual([...WEB_INTERFACE].sort());
  });

  it('answers markdown_to_html as an alias of P_markdown_to_html', () => {
    expect(defaultRegistry().get('markdown_to_html')?.name).toBe('P_markdown_to_html');
  });

  it('in a web interface, runs the 2.1 functions and refuses the others', () => {
    const web = testContext({ surface: 'web-interface' });
    expect(call('encrypt', ['MD5', 'a'], web)).toBe('0cc175b9c0f1b6a831c399e269772661');
    expect(call('P_quoted', ["a'b"], web)).toBe("'a\\'b'");
    expect(errorOf('uuid', [], web)).toBe('function uuid is not available in a web interface');
    expect(errorOf('markdown_to_html', ['x'], web)).toBe(
      'function markdown_to_html is not available in a web interface',
    );
  });
});
