import express, { type RequestHandler } from 'express';
import { ApiProblem } from '../contract/problems';
import { fieldMessages, problemAt } from '../contract/field-messages';

// Bodies are JSON (application/json or any +json type). Content-Type is optional in the interface,
// so a body without one is read as JSON; a body declared as something else is a 415.

const jsonType = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** Body size limit: the largest legitimate single request is well under 2 kB. */
export const BODY_LIMIT = '32kb';
/**
 * A bulk payout holds up to 100 items, each up to about 3 kB with full metadata: the one path
 * allowed a larger body.
 */
export const BULK_BODY_LIMIT = '512kb';
const bulkPaths = new Set(['/v1/payouts/bulk']);
/**
 * The dashboard's spreadsheet upload (CSV or XLSX, src/dashboard/routes/uploads.ts) and the
 * merchant's logo (an image, routes/branding.ts): their own parsers read them.
 */
const rawPaths = new Set(['/dashboard/api/payouts/bulk/preview', '/dashboard/api/team/logo']);
/** The checkout page's and a payment link's forms posted to the page's own address: their routes read the form. */
const formPage = /^\/(checkout|l)\/[^/]+$/;
const formType = /^application\/x-www-form-urlencoded\s*(;|$)/i;

/**
 * How deeply a body may nest objects and arrays. Our deepest request is 3 levels; 32 leaves room
 * and keeps every recursive walk of a body (validation, the idempotency fingerprint) far from
 * the stack's limit, which 32 kB of `[` would otherwise reach (a 500 instead of a 400).
 */
export const MAX_JSON_DEPTH = 32;

/** The 400 for a body nested deeper than MAX_JSON_DEPTH. */
export function tooDeep(): ApiProblem {
  return problemAt('VALIDATION_ERROR', '(body)', fieldMessages.nestedTooDeep(MAX_JSON_DEPTH));
}

/** Whether a parsed value nests objects/arrays deeper than `max`; iterative, so any depth is safe. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return false;
}

export function jsonBody(): RequestHandler[] {
  const parser = (limit: string) =>
    express.json({
      limit,
      type: (req) => {
        const type = req.headers['content-type'];
        return !type || jsonType.test(type);
      },
    });
  const [single, bulk] = [parser(BODY_LIMIT), parser(BULK_BODY_LIMIT)];
  const parse: RequestHandler = (req, res, next) => (bulkPaths.has(req.path) ? bulk : single)(req, res, next);
  const requireJson: RequestHandler = (req, _res, next) => {
    // The full path: under the dashboard's router req.path has lost its /dashboard/api prefix.
    const path = req.originalUrl.split('?')[0]!;
    if (rawPaths.has(path)) return next();
    const type = req.headers['content-type'];
    if (req.method === 'POST' && formPage.test(path) && type && formType.test(type)) return next();
    const hasBody = req.is('*') !== null;
    if (hasBody && type && !jsonType.test(type)) return next(new ApiProblem('UNSUPPORTED_MEDIA_TYPE'));
    next();
  };
  const limitDepth: RequestHandler = (req, _res, next) => {
    if (nestsDeeperThan(req.body, MAX_JSON_DEPTH)) return next(tooDeep());
    next();
  };
  return [requireJson, parse, limitDepth];
}
