/**
 * Answers to requests Node's HTTP parser rejects before Fastify routes them (header fields too
 * large, a malformed request, a timeout): the API's one error body, `{status, code, message}`,
 * instead of Fastify's `{error, message, statusCode}`. The connection is closed after it.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

const ANSWERS: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'too-large',
    message: "The request's header fields are too large.",
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'timeout', message: 'The request took too long to arrive.' },
};
const MALFORMED = { status: 400, code: 'invalid', message: 'The request is not valid HTTP.' };

export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = (error.code !== undefined ? ANSWERS[error.code] : undefined) ?? MALFORMED;
  const body = JSON.stringify(answer);
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  socket.destroy(error);
}
