import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { renderProblem } from '../../src/api/problem';
import {
  duplicateReference,
  fieldMessages,
  invalidField,
  providerRuleProblem,
} from '../../src/contract/field-messages';
import type { ApiProblem } from '../../src/contract/problems';

// The contract's one catalogue of field messages: the texts merchants and customers read (kept
// word for word from before the catalogue), and a guard that none is written a second time.

const render = (p: ApiProblem, lang: 'en' | 'fr') => renderProblem(p.code, lang, p.extra);

describe('field messages', () => {
  it('phrase an invalid number per country, and for the prediction route', () => {
    expect(fieldMessages.invalidMsisdn('CI')).toEqual({
      en: 'Not a valid mobile number in CI.',
      fr: "Ce n'est pas un numéro mobile valide en CI.",
    });
    expect(fieldMessages.invalidMsisdnOfAnyCountry).toEqual({
      en: 'Not a valid mobile number of CI or CM.',
      fr: "Ce n'est pas un numéro mobile valide de CI ou CM.",
    });
    expect(render(invalidField('payin.msisdn', fieldMessages.invalidMsisdn('CM')), 'fr')).toMatchObject({
      code: 'VALIDATION_ERROR',
      detail: "Ce n'est pas un numéro mobile valide en CM.",
      errors: [{ path: 'payin.msisdn', message: "Ce n'est pas un numéro mobile valide en CM." }],
    });
  });

  it('DUPLICATE_REFERENCE names the reference, per kind', () => {
    expect(render(duplicateReference('payin'), 'en')).toMatchObject({
      status: 409,
      code: 'DUPLICATE_REFERENCE',
      errors: [{ path: 'reference', message: 'Already used by another payin.' }],
    });
    expect(render(duplicateReference('payout'), 'fr').errors).toEqual([
      { path: 'reference', message: 'Déjà utilisée par un autre transfert.' },
    ]);
  });

  it('the provider rules give one problem each, at the field under the prefix', () => {
    const p = { operator: 'ORANGE', country: 'CI' };
    expect(
      render(providerRuleProblem({ code: 'OTP_REQUIRED', path: 'otp' }, p, 'payin.'), 'en'),
    ).toMatchObject({
      code: 'OTP_REQUIRED',
      errors: [
        {
          path: 'payin.otp',
          message: 'Required for ORANGE: the code the customer gets by dialling #144*82#.',
        },
      ],
    });
    expect(
      render(providerRuleProblem({ code: 'MSISDN_PROVIDER_MISMATCH', path: 'msisdn' }, p, 'payout.'), 'fr')
        .errors,
    ).toEqual([
      {
        path: 'payout.msisdn',
        message:
          "Ce numéro n'est pas un numéro ORANGE ; choisissez son opérateur (GET /v1/providers/predict).",
      },
    ]);
    expect(
      render(
        providerRuleProblem({ code: 'AMOUNT_OUT_OF_RANGE', path: 'amount', min: 100, max: 1000 }, p),
        'en',
      ).errors,
    ).toEqual([{ path: 'amount', message: 'Must be between 100 and 1000 for ORANGE in CI.' }]);
  });

  it('the checkout tells the customer the same rules in its own words', () => {
    expect(fieldMessages.customer.otpRequired('Orange Money', '#144*82#').en).toBe(
      'Orange Money needs the code you get by dialling #144*82#.',
    );
    expect(fieldMessages.customer.numberOfAnotherOperator('Wave').fr).toBe(
      "Ce numéro n'appartient pas à Wave.",
    );
    expect(fieldMessages.customer.amountOutOfRange('MTN', 100, 500, 'XOF').en).toBe(
      'MTN accepts 100 to 500 XOF.',
    );
  });

  it('each text is written once, in the contract', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    const root = join(__dirname, '../..');
    const sources = [...files(join(root, 'src')), ...files(join(root, 'activities'))].filter(
      (f) => !f.endsWith('.d.ts'),
    );
    const texts = [
      'Not a valid mobile number',
      'numéro mobile valide',
      'Already used by another',
      'choose its own operator',
      'Must be between',
      'the customer gets by dialling',
      'needs the code you get',
      'does not belong to',
      'is not offered in',
      'Nested deeper than',
      'amounts have at most',
      'Doit être un UUID',
    ];
    for (const text of texts) {
      const holders = sources
        .filter((f) => readFileSync(f, 'utf8').includes(text))
        .map((f) => relative(root, f));
      expect({ text, holders }).toEqual({ text, holders: ['src/contract/field-messages.ts'] });
    }
    // One DUPLICATE_REFERENCE problem: the catalogue's entry and the one builder, nowhere else.
    const duplicate = sources
      .filter((f) => /'DUPLICATE_REFERENCE'/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f))
      .filter((f) => !f.startsWith('src/api/openapi/'));
    expect(duplicate).toEqual(['src/contract/field-messages.ts']);
  });
});
