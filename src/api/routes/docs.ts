import { dirname } from 'node:path';
import express, { type Router } from 'express';
import { languages, negotiateLanguage, type Language } from '../../contract/i18n';
import { errorReference, errorReferenceHtml } from '../error-reference';
import { openApiDocument } from '../openapi/document';
import { mount, newRouter, route } from '../routing';

// The contract and its interactive reference. Swagger UI's assets come from node_modules: nothing
// is fetched from a CDN, so /docs works offline and under a strict CSP.
const assets = dirname(require.resolve('swagger-ui-dist/package.json'));

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mobile Money Payments API: reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

const init = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: false,
  validatorUrl: null,
});`;

/** `?lang=fr` (the page's link to the other language) wins over Accept-Language. */
function referenceLanguage(req: express.Request): Language {
  const asked = req.query.lang;
  if (typeof asked === 'string' && (languages as readonly string[]).includes(asked)) return asked as Language;
  return negotiateLanguage(req);
}

export function docsRoutes(): Router {
  const router = newRouter();
  route(router, 'GET /openapi.json', (_req, res) => {
    res.set('Cache-Control', 'no-cache').json(openApiDocument());
  });
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    // Swagger UI sets inline styles on its elements.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "frame-ancestors 'none'",
  ].join('; ');
  const sendPage = (_req: express.Request, res: express.Response) => {
    res.set('Content-Security-Policy', csp).type('html').send(page);
  };
  route(router, 'GET /docs', sendPage);
  route(router, 'GET /docs/', sendPage);
  // The error reference every problem's `type` names (/docs/errors#CODE): HTML for people, the
  // same entries as JSON for programs (Accept: application/json, or /docs/errors.json).
  const errorsCsp = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";
  const sendErrorsJson = (req: express.Request, res: express.Response) => {
    const lang = referenceLanguage(req);
    res.set({ 'Content-Language': lang, Vary: 'Accept, Accept-Language', 'Cache-Control': 'no-cache' });
    res.json({ language: lang, errors: errorReference(lang) });
  };
  route(router, 'GET /docs/errors.json', sendErrorsJson);
  const sendErrors = (req: express.Request, res: express.Response) => {
    if (req.accepts(['html', 'json']) === 'json') return sendErrorsJson(req, res);
    const lang = referenceLanguage(req);
    res
      .set({
        'Content-Security-Policy': errorsCsp,
        'Content-Language': lang,
        Vary: 'Accept, Accept-Language',
        'Cache-Control': 'no-cache',
      })
      .type('html')
      .send(errorReferenceHtml(lang));
  };
  route(router, 'GET /docs/errors', sendErrors);
  route(router, 'GET /docs/errors/', sendErrors);
  route(router, 'GET /docs/init.js', (_req, res) => {
    res.type('application/javascript').send(init);
  });
  mount(router, 'GET /docs/assets', express.static(assets, { index: false, maxAge: '1h' }));
  return router;
}
