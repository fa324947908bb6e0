import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
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
const noHost = {
  en: 'An HTTP/1.1 request needs a Host header.',
  fr: 'Une requête HTTP/1.1 doit porter un en-tête Host.',
};

/** Picks the language from an Accept-Language value as Express would (English by default). */
function languageOf(acceptLanguage: string | undefined) {
  const req = Object.create(express.request, {
    headers: { value: acceptLanguage ? { 'accept-language': acceptLanguage } : {} },
  }) as express.Request;
  return negotiateLanguage(req);
}

/** The Accept-Language of the bytes read before the parser gave up, if it got that far. */
function rawLanguage(raw: Buffer | undefined) {
  return languageOf(/\r?\naccept-language:[ \t]*([^\r\n]*)/i.exec(raw?.toString('latin1') ?? '')?.[1]);
}

export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, stream: Duplex) => {
    const socket = stream as Socket & { _httpMessage?: { headersSent?: boolean } | null };
    // As Node does: write only where no answer of this connection has started (keep-alive).
    if (err.code !== 'ECONNRESET' && socket.writable && !socket._httpMessage?.headersSent) {
      const { code, reason } = answers[err.code ?? ''] ?? malformed;
      const problem = renderProblem(code, rawLanguage(err.rawPacket));
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

  // An HTTP/1.1 request without Host: Node answers a bare 400 before any listener unless told not
  // to check; the check moves here, in front of the app, to answer a problem.
  const node = server as Server & { requireHostHeader?: boolean };
  if (node.requireHostHeader !== false) {
    node.requireHostHeader = false;
    const app = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.httpVersion === '1.1' && req.headers.host === undefined) {
        const body = JSON.stringify(
          renderProblem('MALFORMED_REQUEST', languageOf(req.headers['accept-language']), { detail: noHost }),
        );
        res
          .writeHead(400, {
            'content-type': 'application/problem+json',
            'content-length': Buffer.byteLength(body),
            connection: 'close',
          })
          .end(body);
        return;
      }
      for (const listener of app) listener.call(server, req, res);
    });
  }
  // An Expect other than 100-continue: Node answers a bare 417; RFC 9110 lets a server ignore it.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    server.emit('request', req, res),
  );
}
