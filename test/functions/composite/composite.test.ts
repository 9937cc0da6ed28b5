/** The Composite API group: set_status and P_custom_header shape ExecutionContext.response. */
import { describe, expect, it } from 'vitest';
import type { CompositeResponse } from '../../../src/functions/context.js';
import { call, errorOf, testContext } from '../helpers.js';

const withResponse = () => {
  const response: CompositeResponse = { headers: {} };
  return { response, ctx: testContext({ surface: 'composite-api', response }) };
};

describe('set_status', () => {
  it('sets the code, the reason phrase and the description; the last call wins', () => {
    const { response, ctx } = withResponse();
    expect(call('set_status', [201], ctx)).toBe('');
    expect(response).toEqual({ status: 201, headers: {} });
    call('set_status', ['404', 'Not Here', 'No order 42'], ctx);
    expect(response).toEqual({
      status: 404,
      statusName: 'Not Here',
      description: 'No order 42',
      headers: {},
    });
    call('set_status', [200], ctx);
    expect(response).toEqual({ status: 200, headers: {} });
  });

  it('refuses what is not an HTTP status, a reason phrase with a line break, a missing response', () => {
    const { ctx } = withResponse();
    expect(errorOf('set_status', [99], ctx)).toBe(
      'set_status: argument 1 (code) must be an HTTP status code (100 to 599), not 99',
    );
    expect(errorOf('set_status', [600], ctx)).toBe(
      'set_status: argument 1 (code) must be an HTTP status code (100 to 599), not 600',
    );
    expect(errorOf('set_status', ['ok'], ctx)).toMatch(
      /^set_status: argument 1 \(code\) expected an integer/,
    );
    expect(errorOf('set_status', [200, 'OK\r\nSet-Cookie: x=1'], ctx)).toBe(
      'set_status: argument 2 (name) must be at most 255 characters without line breaks',
    );
    expect(errorOf('set_status', [200, 'OK', 'x'.repeat(4097)], ctx)).toBe(
      'set_status: argument 3 (description) must be at most 4096 characters',
    );
    expect(errorOf('set_status', [200], testContext({ surface: 'process-task' }))).toBe(
      'set_status: only a composite API has an HTTP response to shape',
    );
  });
});

describe('P_custom_header', () => {
  it('sets headers, a second call with the same name in any case replacing the first', () => {
    const { response, ctx } = withResponse();
    expect(call('P_custom_header', ['X-Total', 42], ctx)).toBe('');
    call('P_custom_header', ['Cache-Control', 'no-store'], ctx);
    call('P_custom_header', ['x-total', '43'], ctx);
    expect(response.headers).toEqual({ 'Cache-Control': 'no-store', 'x-total': '43' });
  });

  it('refuses names that are not header names, headers the server frames, values with line breaks', () => {
    const { ctx } = withResponse();
    expect(errorOf('P_custom_header', ['Bad Name', 'x'], ctx)).toBe(
      'P_custom_header: argument 1 (name) "Bad Name" is not a header name',
    );
    expect(errorOf('P_custom_header', ['', 'x'], ctx)).toBe(
      'P_custom_header: argument 1 (name) "" is not a header name',
    );
    for (const name of ['Set-Cookie', 'content-length', 'Transfer-Encoding', 'Connection'])
      expect(errorOf('P_custom_header', [name, 'x'], ctx)).toBe(
        `P_custom_header: argument 1 (name) ${name} is set by the server, not by a script`,
      );
    expect(errorOf('P_custom_header', ['X-A', 'a\r\nSet-Cookie: b'], ctx)).toBe(
      'P_custom_header: argument 2 (value) must be at most 8192 characters without line breaks',
    );
    expect(errorOf('P_custom_header', ['X-A', 'snow ☃'], ctx)).toBe(
      'P_custom_header: argument 2 (value) must be at most 8192 characters without line breaks',
    );
    expect(errorOf('P_custom_header', ['X-A', 'b'], testContext())).toBe(
      'P_custom_header: only a composite API has an HTTP response to shape',
    );
  });

  it('is not available in a web interface', () => {
    const ctx = testContext({ surface: 'web-interface', response: { headers: {} } });
    expect(errorOf('P_custom_header', ['X-A', 'b'], ctx)).toBe(
      'function P_custom_header is not available in a web interface',
    );
    expect(errorOf('set_status', [200], ctx)).toBe('function set_status is not available in a web interface');
  });
});
