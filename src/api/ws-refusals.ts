import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiProblem } from '../contract/problems';
import type { Language } from '../contract/i18n';
import { renderProblem } from './problem';

// Answers to a WebSocket upgrade that is refused: written on the raw socket, since the upgrade
// never reaches express and no WebSocket exists yet.

export const tooManyConnections = {
  en: 'Too many open WebSockets for this account; close one, or retry after the delay in Retry-After.',
  fr: 'Trop de WebSockets ouverts pour ce compte ; fermez-en un, ou réessayez après le délai indiqué par Retry-After.',
};

/** The `error` messages written on an open WebSocket, in the language of its upgrade request. */
export const socketMessages = {
  internal: { en: 'Server error; reconnect later.', fr: 'Erreur du serveur ; reconnectez-vous plus tard.' },
  notJson: { en: 'Send JSON text messages.', fr: 'Envoyez des messages texte en JSON.' },
  invalid: {
    en: 'Expected {"type":"subscribe","references"?:[...],"lastEventId"?:"evt_..."} or {"type":"ping"}.',
    fr: 'Attendu : {"type":"subscribe","references"?:[...],"lastEventId"?:"evt_..."} ou {"type":"ping"}.',
  },
  unknownLastEvent: {
    en: 'Unknown lastEventId: live events only; read GET /v1/events for history.',
    fr: "lastEventId inconnu : événements en direct seulement ; lisez GET /v1/events pour l'historique.",
  },
} satisfies Record<string, Record<Language, string>>;

/** The first language of Accept-Language we speak (the upgrade never reaches express). */
export function languageOf(req: IncomingMessage): Language {
  for (const part of (req.headers['accept-language'] ?? '').split(',')) {
    const tag = part.trim().slice(0, 2).toLowerCase();
    if (tag === 'fr' || tag === 'en') return tag;
  }
  return 'en';
}

/** An RFC 9457 problem answered to an upgrade, before any WebSocket exists. */
export function refuseProblem(
  socket: Duplex,
  path: string,
  code: ApiProblem['code'],
  lang: Language,
  extra: ApiProblem['extra'],
  headers: Record<string, string>,
): void {
  const problem = renderProblem(code, lang, extra, path);
  const body = JSON.stringify(problem);
  const extraHeaders = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}\r\nConnection: close\r\n` +
      `Content-Type: application/problem+json\r\nContent-Language: ${lang}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}\r\n${body}`,
  );
}

export function refuse(
  socket: Duplex,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n${extra}\r\n`);
}
