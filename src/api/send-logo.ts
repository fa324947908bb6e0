import type { Request, Response } from 'express';
import type { LogoImage } from '../merchants/logos';

/**
 * A merchant's logo as an image response (the link's page, the team's page): its sniffed type,
 * never rendered as anything else (`nosniff`, a sandbox of its own), read by our origin only, named
 * by its version (ETag) so a browser that has it gets a 304.
 */
export function sendLogo(req: Request, res: Response, logo: LogoImage, cacheControl: string): void {
  res.set({
    'Content-Type': logo.contentType,
    'Content-Length': String(logo.data.length),
    'Cache-Control': cacheControl,
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'Cross-Origin-Resource-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
    ETag: `"${logo.version}"`,
  });
  if (req.fresh) return void res.status(304).end();
  res.end(logo.data);
}
