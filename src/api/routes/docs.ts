import { dirname } from 'node:path';
import express, { Router } from 'express';
import { openApiDocument } from '../openapi/document';

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

export function docsRoutes(): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
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
  router.get(['/docs', '/docs/'], (_req, res) => {
    res.set('Content-Security-Policy', csp).type('html').send(page);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(init);
  });
  router.use('/docs/assets', express.static(assets, { index: false, maxAge: '1h' }));
  return router;
}
