import type { Express } from 'express';
import { z } from 'zod';
import { normalizeMsisdn } from '../domain/msisdn';
import { predictCarrier } from '../domain/operator-prefixes';
import { countries, operatorsByCountry, type OperatorCode } from '../domain/operators';
import { badRequest } from './route-helpers';

// The sandbox's recipient check (test mode's GET /v1/providers/recipient): who a number belongs to,
// whether its account is active and the holder's name, chosen by the number's last four digits as
// the other magic numbers are (docs/sandbox.md). Any other number: the operator of its prefix, an
// active account, and the sandbox holder name.

export type RecipientBehaviour = 'inactive' | 'no-name' | 'unknown' | 'unavailable';

export const recipientSuffixes: Record<string, RecipientBehaviour> = {
  /** The account exists but is not active (closed, blocked). */
  '9911': 'inactive',
  /** Active, but the operator does not share the holder's name. */
  '9912': 'no-name',
  /** The operator does not know the number (no account). */
  '9913': 'unknown',
  /** The check is unavailable: 503 every time. */
  '9914': 'unavailable',
};

/** The name every other active sandbox account is held by. */
export const sandboxHolderName = 'Awa Koné';

const query = z.object({ country: z.enum(countries) });

export function mountRecipientRoutes(app: Express): void {
  app.get('/recipients/:msisdn', (req, res) => {
    const q = query.safeParse(req.query);
    if (!q.success) return badRequest(res, `country must be one of ${countries.join(', ')}`);
    const country = q.data.country;
    const msisdn = normalizeMsisdn(String(req.params.msisdn), country);
    if (!msisdn) return badRequest(res, `Not a mobile number of ${country}`);
    const behaviour = recipientSuffixes[msisdn.slice(-4)];
    if (behaviour === 'unavailable')
      return res.status(503).json({ error: 'UNAVAILABLE', message: 'Recipient checks are unavailable' });
    const carrier = predictCarrier(msisdn)?.carrier ?? null;
    const operator =
      behaviour === 'unknown'
        ? null
        : (operatorsByCountry[country].find((o): o is OperatorCode => o === carrier) ?? null);
    res.json({
      operator,
      country,
      active: behaviour === 'unknown' ? null : behaviour !== 'inactive',
      holderName: behaviour === undefined ? sandboxHolderName : null,
    });
  });
}
