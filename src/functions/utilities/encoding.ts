/** Encodings: R_encode, decode, bubble_babble. */
import { urlEncode } from '../../jdk/index.js';
import { argumentError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { choice } from './args.js';
import { bubbleBabble } from './bubble-babble.js';
import { encodeBinary, hex, utf8Bytes, utf8Text } from './bytes.js';
import { Base64DecodeError, decodeJavaBase64 } from './java-base64.js';

const encode = defineFunction({
  name: 'R_encode',
  group: 'Utilities',
  rights: 'none',
  flags: { pure: true },
  doc:
    'Encodes the UTF-8 bytes of `input`: BASE64 and BASE64URL (padded, as java.util.Base64 writes them) or URL (java.net.URLEncoder in UTF-8: a space becomes +). ' +
    '`result` CHAR (default) gives the encoded text; HEXA gives the lower-case hexadecimal of the encoded text\u2019s bytes.',
  returns: 'string',
  forms: [
    {
      params: [
        { name: 'encoding', type: 'string' },
        { name: 'input', type: 'string' },
        { name: 'result', type: 'string', optional: true, default: 'CHAR' },
      ],
      impl(_ctx, args) {
        const [encoding, input, result] = args;
        const which = choice('R_encode', 1, 'encoding', encoding, ['BASE64', 'BASE64URL', 'URL'] as const);
        const as = choice('R_encode', 3, 'result', result, ['CHAR', 'HEXA'] as const);
        const text = which === 'URL' ? urlEncode(input, 'UTF-8') : encodeBinary(utf8Bytes(input), which);
        return as === 'HEXA' ? hex(utf8Bytes(text)) : text;
      },
    },
  ],
});

const decode = defineFunction({
  name: 'decode',
  group: 'Utilities',
  rights: 'none',
  doc:
    'Decodes Base64 text (the only algorithm) and reads the bytes as UTF-8. As strict as java.util.Base64.getDecoder(): no line breaks, ' +
    'no URL-safe characters, padding checked when present, missing padding accepted.',
  returns: 'string',
  flags: { webInterface: true, pure: true },
  forms: [
    {
      params: [
        { name: 'algorithm', type: 'string' },
        { name: 'input', type: 'string' },
      ],
      impl(_ctx, args) {
        const [algorithm, input] = args;
        choice('decode', 1, 'algorithm', algorithm, ['Base64'] as const);
        try {
          return utf8Text(decodeJavaBase64(input));
        } catch (e) {
          if (e instanceof Base64DecodeError)
            throw argumentError('decode', 2, 'input', `is not valid Base64: ${e.message}`);
          throw e;
        }
      },
    },
  ],
});

const babble = defineFunction({
  name: 'bubble_babble',
  group: 'Utilities',
  rights: 'none',
  flags: { pure: true },
  doc: 'The Bubble Babble encoding (pronounceable, with a checksum) of the UTF-8 bytes of `input`: "" gives xexax.',
  returns: 'string',
  forms: [
    {
      params: [{ name: 'input', type: 'string' }],
      impl: (_ctx, args) => bubbleBabble(utf8Bytes(args[0])),
    },
  ],
});

export const encodingFunctions: FunctionSpec[] = [encode, decode, babble];
