import express, { type RequestHandler } from 'express';
import { ApiProblem } from './problem';

// Bodies are JSON (application/json or any +json type). Content-Type is optional in the interface,
// so a body without one is read as JSON; a body declared as something else is a 415.

const jsonType = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** Body size limit: the largest legitimate request is well under 2 kB. */
export const BODY_LIMIT = '32kb';

export function jsonBody(): RequestHandler[] {
  const parse = express.json({
    limit: BODY_LIMIT,
    type: (req) => {
      const type = req.headers['content-type'];
      return !type || jsonType.test(type);
    },
  });
  const requireJson: RequestHandler = (req, _res, next) => {
    const type = req.headers['content-type'];
    const hasBody = req.is('*') !== null;
    if (hasBody && type && !jsonType.test(type)) return next(new ApiProblem('UNSUPPORTED_MEDIA_TYPE'));
    next();
  };
  return [requireJson, parse];
}
