/**
 * The Composite API group of spec 4.3: set_status and P_custom_header shape the HTTP response of a
 * composite API (ExecutionContext.response, which the composite host sends; docs/hosts.md).
 */
import type { CompositeResponse, ExecutionContext } from '../context.js';
import { argumentError, FunctionError } from '../errors.js';
import { defineFunction, type FunctionSpec } from '../spec.js';
import { SERVER_HEADERS } from './server-headers.js';

/** RFC 9110 token characters: what a header name is made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible Latin-1 characters, spaces and tabs (no CR, LF or other control): what Node sends in a header or reason phrase. */
const FIELD_TEXT = /^[\t\x20-\x7e\x80-\xff]*$/;

function responseOf(fn: string, ctx: ExecutionContext): CompositeResponse {
  if (!ctx.response) throw new FunctionError(fn, 'only a composite API has an HTTP response to shape');
  return ctx.response;
}

export const composite: FunctionSpec[] = [
  defineFunction({
    name: 'set_status',
    group: 'Composite API',
    rights: 'none',
    doc:
      'Sets the HTTP status of the composite API response: `code` (100 to 599), `name` the reason phrase sent with ' +
      'it, `description` a text kept with the response (the JSON error body uses it when the script outputs ' +
      'nothing). The last call wins.',
    returns: 'none',
    forms: [
      {
        params: [
          { name: 'code', type: 'integer' },
          { name: 'name', type: 'string', optional: true },
          { name: 'description', type: 'string', optional: true },
        ],
        impl(ctx, [code, name, description], _call, fn) {
          const response = responseOf(fn, ctx);
          if (code < 100 || code > 599)
            throw argumentError(fn, 1, 'code', `must be an HTTP status code (100 to 599), not ${code}`);
          if (name !== undefined && (!FIELD_TEXT.test(name) || name.length > 255))
            throw argumentError(fn, 2, 'name', 'must be at most 255 characters without line breaks');
          if (description !== undefined && description.length > 4096)
            throw argumentError(fn, 3, 'description', 'must be at most 4096 characters');
          response.status = code;
          if (name === undefined) delete response.statusName;
          else response.statusName = name;
          if (description === undefined) delete response.description;
          else response.description = description;
          return '';
        },
      },
    ],
  }),
  defineFunction({
    name: 'P_custom_header',
    group: 'Composite API',
    rights: 'none',
    doc:
      'Sets an HTTP header of the composite API response (names are case-insensitive: a second call with the ' +
      'same name replaces the first). The server frames Content-Length, Transfer-Encoding, Connection, ' +
      'Keep-Alive, Upgrade and Set-Cookie itself: they are refused, as are values with line breaks.',
    returns: 'none',
    forms: [
      {
        params: [
          { name: 'name', type: 'string' },
          { name: 'value', type: 'string' },
        ],
        impl(ctx, [name, value], _call, fn) {
          const response = responseOf(fn, ctx);
          const header = name;
          if (!TOKEN.test(header) || header.length > 255)
            throw argumentError(fn, 1, 'name', `${JSON.stringify(header)} is not a header name`);
          if (SERVER_HEADERS.has(header.toLowerCase()))
            throw argumentError(fn, 1, 'name', `${header} is set by the server, not by a script`);
          if (!FIELD_TEXT.test(value) || value.length > 8192)
            throw argumentError(fn, 2, 'value', 'must be at most 8192 characters without line breaks');
          for (const existing of Object.keys(response.headers))
            if (existing.toLowerCase() === header.toLowerCase()) delete response.headers[existing];
          response.headers[header] = value;
          return '';
        },
      },
    ],
  }),
];
