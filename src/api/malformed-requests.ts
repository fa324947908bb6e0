import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import express from 'express';
import { negotiateLanguage } from '../contract/i18n';
import { renderProblem } from '../contract/render-problem';
import type { ProblemCode } from '../contract/problems';

// A request Node's HTTP parser rejects (a header split by a raw line break, as `base64` wraps long
// credentials; a bad Content-Length; oversized headers) never reaches Express: Node answers a bare
// 400 with no body. The server's 'clientError' event answers a problem document instead.

const answers: Record<string, { code: ProblemCode; reason: string }> = {
  HPE_HEADER_OVERFLOW: { code: 'REQUEST_HEADERS_TOO_LARGE', reason: 'Request Header Fields Too Large' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT', reason: 'Request Timeout' },
};
const malformed = { code: 'MALFORMED_REQUEST', reason: 'Bad Request' } as const;

/** The Accept-Language of the bytes read so far, as Express would negotiate it (English by default). */
function languageOf(raw: Buffer | undefined) {
  const header = /\r?\naccept-language:[ \t]*([^\r\n]*)/i.exec(raw?.toString('latin1') ?? '')?.[1];
  const req = Object.create(express.request, {
    headers: { value: header ? { 'accept-language': header } : {} },
  }) as express.Request;
  return negotiateLanguage(req);
}

export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, stream: Duplex) => {
    const socket = stream as Socket & { _httpMessage?: { headersSent?: boolean } | null };
    // As Node does: write only where no answer of this connection has started (keep-alive).
    if (err.code !== 'ECONNRESET' && socket.writable && !socket._httpMessage?.headersSent) {
      const { code, reason } = answers[err.code ?? ''] ?? malformed;
      const problem = renderProblem(code, languageOf(err.rawPacket));
      const body = JSON.stringify(problem);
      socket.end(
        `HTTP/1.1 ${problem.status} ${reason}\r\n` +
          'Content-Type: application/problem+json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroySoon();
  });
}
