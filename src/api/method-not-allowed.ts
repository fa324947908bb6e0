import type { RequestHandler } from 'express';
import { negotiateLanguage } from '../contract/i18n';
import { renderProblem, sendProblem } from './problem';

// A documented path asked with a method it does not have is a 405 with `Allow` (RFC 9110 §15.5.6),
// not a 404 or whatever a middleware meant for another method would answer (e.g. the idempotency
// key check of a POST to a read route). The OpenAPI document is the list of what exists.

interface PathMethods {
  pattern: RegExp;
  /** Literal segments: `/v1/payin/sessions` (3) wins over `/v1/payin/{reference}` (2). */
  literals: number;
  methods: string[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function pathMethods(paths: Record<string, Record<string, unknown>>): PathMethods[] {
  return Object.entries(paths).map(([template, item]) => {
    const segments = template.split('/').filter(Boolean);
    return {
      pattern: new RegExp(
        `^/${segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : escape(s))).join('/')}/?$`,
      ),
      literals: segments.filter((s) => !s.startsWith('{')).length,
      methods: Object.keys(item).map((m) => m.toUpperCase()),
    };
  });
}

/** Methods of the most specific documented path `path` matches, as OpenAPI resolves a path; null if none. */
export function allowedMethods(table: PathMethods[], path: string): string[] | null {
  const matches = table.filter((p) => p.pattern.test(path));
  if (matches.length === 0) return null;
  const best = Math.max(...matches.map((p) => p.literals));
  const methods = new Set(matches.filter((p) => p.literals === best).flatMap((p) => p.methods));
  // Express answers HEAD from a GET route; OPTIONS is answered below.
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  return [...methods];
}

export function methodNotAllowed(paths: Record<string, Record<string, unknown>>): RequestHandler {
  const table = pathMethods(paths);
  return (req, res, next) => {
    const allowed = allowedMethods(table, req.path);
    if (!allowed || (req.method !== 'OPTIONS' && allowed.includes(req.method))) return next();
    res.set('Allow', allowed.join(', '));
    // Express's own OPTIONS answer lists the methods of every route the path matches (GET of
    // /v1/payin/{reference} for /v1/payin/sessions); this one lists the document's. No CORS here.
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    sendProblem(res, renderProblem('METHOD_NOT_ALLOWED', negotiateLanguage(req), {}, req.originalUrl));
  };
}
