import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { negotiateLanguage, type Language } from './i18n';

// Every error leaves the API as application/problem+json (RFC 9457) with a stable `code`.
// Titles and details are localized; English titles of the refund errors are the interface's own.

type Text = Record<Language, string>;
interface Catalogue {
  status: number;
  title: Text;
  detail?: Text;
}

export const problemCatalogue = {
  VALIDATION_ERROR: {
    status: 400,
    title: { en: 'Invalid request', fr: 'Requête invalide' },
    detail: { en: 'One or more fields are invalid.', fr: 'Un ou plusieurs champs sont invalides.' },
  },
  MALFORMED_JSON: {
    status: 400,
    title: { en: 'Malformed JSON', fr: 'JSON mal formé' },
    detail: {
      en: 'The request body is not valid JSON.',
      fr: "Le corps de la requête n'est pas un JSON valide.",
    },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    title: { en: 'Unsupported media type', fr: 'Type de contenu non pris en charge' },
    detail: { en: 'Send the body as application/json.', fr: 'Envoyez le corps en application/json.' },
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    title: { en: 'Payload too large', fr: 'Requête trop volumineuse' },
    detail: { en: 'The request body is too large.', fr: 'Le corps de la requête est trop volumineux.' },
  },
  UNAUTHORIZED: {
    status: 401,
    title: { en: 'Unauthorized', fr: 'Non autorisé' },
    detail: {
      en: 'Send Authorization: Basic base64(api_key:api_client) with valid credentials.',
      fr: 'Envoyez Authorization: Basic base64(api_key:api_client) avec des identifiants valides.',
    },
  },
  NOT_FOUND: {
    status: 404,
    title: { en: 'Not found', fr: 'Introuvable' },
    detail: { en: 'No such resource.', fr: "Cette ressource n'existe pas." },
  },
  PAYMENT_NOT_FOUND: {
    status: 404,
    title: { en: 'Payment not found', fr: 'Paiement introuvable' },
    detail: { en: 'No payment has this reference.', fr: "Aucun paiement n'a cette référence." },
  },
  DUPLICATE_REFERENCE: {
    status: 409,
    title: { en: 'Duplicate reference', fr: 'Référence déjà utilisée' },
    detail: {
      en: 'This reference was already used for another transaction.',
      fr: 'Cette référence a déjà été utilisée pour une autre transaction.',
    },
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    title: { en: 'Service unavailable', fr: 'Service indisponible' },
    detail: {
      en: 'A dependency is unavailable; retry later.',
      fr: 'Une dépendance est indisponible ; réessayez plus tard.',
    },
  },
  INTERNAL_ERROR: {
    status: 500,
    title: { en: 'Internal Server Error', fr: 'Erreur interne du serveur' },
    detail: { en: 'Server error; retry later.', fr: 'Erreur du serveur ; réessayez plus tard.' },
  },
} as const satisfies Record<string, Catalogue>;

export type ProblemCode = keyof typeof problemCatalogue;

export interface FieldError {
  path: string;
  message: string;
}

export class ApiProblem extends Error {
  constructor(
    readonly code: ProblemCode,
    readonly extra: { detail?: Text; errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(code);
  }
}

export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  code: z.string(),
  instance: z.string().optional(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type Problem = z.infer<typeof problemSchema>;

export function renderProblem(
  code: ProblemCode,
  lang: Language,
  extra: ApiProblem['extra'] = {},
  instance?: string,
): Problem {
  const entry: Catalogue = problemCatalogue[code];
  const detail = extra.detail ?? entry.detail;
  return {
    type: `/docs/errors#${code}`,
    title: entry.title[lang],
    status: entry.status,
    ...(detail ? { detail: detail[lang] } : {}),
    code,
    ...(instance ? { instance } : {}),
    ...(extra.errors ? { errors: extra.errors } : {}),
  };
}

export function sendProblem(res: Response, problem: Problem, headers: Record<string, string> = {}): void {
  res.status(problem.status).set(headers).type('application/problem+json').send(JSON.stringify(problem));
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendProblem(res, renderProblem('NOT_FOUND', negotiateLanguage(req), {}, req.originalUrl));
};

/** Last handler: known problems as they are, body-parser errors as 4xx, anything else a bare 500. */
export function errorHandler(log: (err: unknown) => void): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const lang = negotiateLanguage(req);
    if (err instanceof ApiProblem) {
      return sendProblem(res, renderProblem(err.code, lang, err.extra, req.originalUrl), err.extra.headers);
    }
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.parse.failed') return sendProblem(res, renderProblem('MALFORMED_JSON', lang));
    if (e.type === 'entity.too.large') return sendProblem(res, renderProblem('PAYLOAD_TOO_LARGE', lang));
    if (e.status && e.status >= 400 && e.status < 500)
      return sendProblem(res, renderProblem('VALIDATION_ERROR', lang));
    log(err);
    sendProblem(res, renderProblem('INTERNAL_ERROR', lang, {}, req.originalUrl));
  };
}
