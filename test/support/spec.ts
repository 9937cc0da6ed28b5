/** Lists the specification (shared/spec/function-library.md) states, written out once for the tests. */

/** Spec 2.1: the functions usable in a web interface. */
export const SPEC_2_1_WEB_INTERFACE = [
  'get_applications',
  'get_lanes',
  'date_format',
  'date_offset',
  'decode',
  'encrypt',
  'get_date',
  'get_random',
  'get_random_gaussian',
  'get_time',
  'now',
  'timestamp',
  'to_xml',
  'transpose',
];

/** Beyond spec 2.1's list: the platform's web-interface code uses them (docs/hosts.md). */
export const WEB_INTERFACE_EXTRAS = ['P_quoted', 'i18n'];
