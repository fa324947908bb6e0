import { z } from 'zod';
import { languages, type Language, type Text } from '../../src/contract/i18n';
import { fieldMessages, refundConflict } from '../../src/contract/field-messages';
import { renderProblem } from '../../src/contract/render-problem';
import { socketMessages } from '../../src/api/ws-refusals';
import { problemCatalogue, type Catalogue, type ProblemCode } from '../../src/contract/problems';
import { zodErrorMap, zodIssueText } from '../../src/contract/zod-messages';
import { directPayinRequest } from '../../src/contract/schemas/payin';
import { payinSessionRequest } from '../../src/contract/schemas/payin-session';
import { standardPayoutRequest } from '../../src/contract/schemas/payout';
import { refundRequest } from '../../src/contract/schemas/refund';
import { checkoutConfirmRequest } from '../../src/contract/schemas/checkout';
import { accountEntriesQuery } from '../../src/contract/schemas/accounts';
import { transactionSearchQuery } from '../../src/contract/schemas/transaction-search';
import { errorReference, errorReferenceHtml } from '../../src/api/error-reference';
import { englishWords } from '../helpers/english-words';

// Every text a merchant or a customer can read in an error exists in English and in French, and
// the French one holds no English prose: the catalogue (title, detail, what to do), the field
// messages, and our wording of every issue zod raises.

const codes = Object.keys(problemCatalogue) as ProblemCode[];
const entry = (code: ProblemCode): Catalogue => problemCatalogue[code];

/** Every Text reachable in fieldMessages, functions called with sample arguments. */
function allFieldTexts(): [string, Text][] {
  const out: [string, Text][] = [];
  const walk = (name: string, v: unknown) => {
    if (typeof v === 'function')
      return walk(name, (v as (...a: unknown[]) => unknown)('CI', 'XOF', 'MTN', 3));
    if (v && typeof v === 'object') {
      if ('en' in v && 'fr' in v) return void out.push([name, v as Text]);
      for (const [k, child] of Object.entries(v)) walk(`${name}.${k}`, child);
    }
  };
  walk('fieldMessages', fieldMessages);
  return out;
}

const messagesOf = (schema: z.ZodType, input: unknown, lang: Language) =>
  schema.safeParse(input, { error: zodErrorMap(lang) }).error!.issues.map((i) => ({
    path: i.path.join('.'),
    message: i.message,
  }));

describe('the problem catalogue speaks both languages and says what to do', () => {
  it.each(codes)('%s: title, detail and help in en and fr, the French free of English', (code) => {
    const e = entry(code);
    for (const text of [e.title, e.detail!, e.help]) {
      for (const lang of languages) expect(text[lang]?.trim()).toBeTruthy();
      expect(englishWords(text.fr)).toEqual([]);
    }
    expect(e.help.fr).not.toBe(e.help.en);
  });
});

describe('field messages', () => {
  it.each(allFieldTexts())('%s is French under fr', (_name, text) => {
    expect(text.fr.trim()).not.toBe('');
    expect(text.fr).not.toBe(text.en);
    expect(englishWords(text.fr)).toEqual([]);
  });
});

describe('problems raised with their own texts', () => {
  it.each(Object.entries(refundConflict))('refundConflict.%s: French under fr', (_name, make) => {
    const p = make();
    const [en, fr] = [renderProblem(p.code, 'en', p.extra), renderProblem(p.code, 'fr', p.extra)];
    expect(fr.detail).not.toBe(en.detail);
    for (const text of [fr.title, fr.detail!, ...fr.errors!.map((e) => e.message)])
      expect(englishWords(text)).toEqual([]);
  });

  it.each(Object.entries(socketMessages))('the WebSocket message %s: French under fr', (_name, text) => {
    expect(text.fr).not.toBe(text.en);
    expect(englishWords(text.fr)).toEqual([]);
  });
});

describe('zod issues, in our words', () => {
  it('a missing field is "Required." / "Obligatoire."', () => {
    expect(messagesOf(directPayinRequest, {}, 'en')).toContainEqual({
      path: 'reference',
      message: 'Required.',
    });
    expect(messagesOf(directPayinRequest, {}, 'fr')).toContainEqual({
      path: 'reference',
      message: 'Obligatoire.',
    });
  });

  it('wrong types, bounds, formats, allowed values and unknown fields say what is expected', () => {
    const bad = {
      reference: 'a b',
      payin: { amount: 0, msisdn: '0700', provider: 'XX', country: 'CI', otp: 'x' },
      action: { successUrl: 'ftp://x', failureUrl: 3 },
      unknown: 1,
    };
    expect(messagesOf(directPayinRequest, bad, 'en')).toEqual(
      expect.arrayContaining([
        { path: 'reference', message: 'Only letters, digits and . _ : - are allowed.' },
        { path: 'payin.amount', message: 'Must be greater than 0.' },
        { path: 'payin.msisdn', message: 'Must be an international number such as +2250700000001.' },
        { path: 'payin.provider', message: 'Must be one of: "ORANGE", "MTN", "MOOV", "WAVE".' },
        { path: 'payin.otp', message: 'Must be 4 to 8 digits.' },
        { path: 'action.successUrl', message: 'Must be a web address (http or https URL).' },
        { path: 'action.failureUrl', message: 'Must be a string, not a number.' },
        { path: '', message: 'Unknown field: remove it.' },
      ]),
    );
    expect(messagesOf(directPayinRequest, bad, 'fr')).toEqual(
      expect.arrayContaining([
        { path: 'reference', message: 'Seuls les lettres, les chiffres et . _ : - sont admis.' },
        { path: 'payin.amount', message: 'Doit être supérieur à 0.' },
        { path: 'payin.msisdn', message: 'Doit être un numéro international tel que +2250700000001.' },
        {
          path: 'payin.provider',
          message: 'Doit être l\'une des valeurs : "ORANGE", "MTN", "MOOV", "WAVE".',
        },
        { path: 'payin.otp', message: 'Doit compter de 4 à 8 chiffres.' },
        { path: 'action.failureUrl', message: 'Doit être une chaîne de caractères, et non un nombre.' },
        { path: '', message: 'Champ inconnu : retirez-le.' },
      ]),
    );
  });

  // Bad bodies and queries of the schemas merchants and customers send, every message scanned.
  const cases: [string, z.ZodType, unknown][] = [
    ['payin, empty', directPayinRequest, {}],
    [
      'payin, wrong types',
      directPayinRequest,
      { reference: 1, payin: [], action: 'x', metadata: { 'a b': 1 } },
    ],
    [
      'payin, bounds',
      directPayinRequest,
      {
        reference: 'x'.repeat(101),
        customerName: '',
        payin: { amount: 1.5, msisdn: '+22507', provider: 'MTN', country: 'ZZ', currency: 'EUR' },
        action: { successUrl: 'javascript:alert(1)', failureUrl: 'https://ok.example' },
        metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])),
      },
    ],
    ['session, empty', payinSessionRequest, {}],
    ['payout, wrong types', standardPayoutRequest, { reference: [], payout: { amount: '1' } }],
    ['refund, empty', refundRequest, {}],
    ['refund, bounds', refundRequest, { reason: '', externalReference: 'x'.repeat(300), amount: -1 }],
    ['checkout confirm', checkoutConfirmRequest, { provider: 'X', msisdn: '07 00', otp: '1', extra: true }],
    ['entries query', accountEntriesQuery, { limit: '0', cursor: 'zz', from: 'yesterday', to: '2020-01-01' }],
    ['search query', transactionSearchQuery, { limit: 'abc', provider: 'MTN', from: 'x', type: 'y' }],
  ];
  it.each(cases)(
    '%s: every French message differs from the English one and holds no English',
    (_n, schema, input) => {
      const en = messagesOf(schema, input, 'en');
      const fr = messagesOf(schema, input, 'fr');
      expect(fr.length).toBeGreaterThan(0);
      fr.forEach((f, i) => {
        expect(f.message).not.toBe(en[i]!.message);
        expect({ path: f.path, english: englishWords(f.message) }).toEqual({ path: f.path, english: [] });
        expect(f.message).not.toMatch(/Entrée invalide|Invalid input/);
      });
    },
  );

  // One raw issue of every code zod raises, so none falls back to zod's own locale.
  const issues: z.core.$ZodRawIssue[] = [
    { code: 'invalid_type', expected: 'string', input: undefined },
    { code: 'invalid_type', expected: 'number', input: 'x' },
    { code: 'invalid_type', expected: 'int', input: 1.5 },
    { code: 'invalid_type', expected: 'object', input: [] },
    { code: 'too_small', origin: 'string', minimum: 1, input: '' },
    { code: 'too_small', origin: 'string', minimum: 3, input: 'a' },
    { code: 'too_small', origin: 'number', minimum: 0, inclusive: false, input: 0 },
    { code: 'too_small', origin: 'array', minimum: 1, input: [] },
    { code: 'too_big', origin: 'string', maximum: 100, input: '' },
    { code: 'too_big', origin: 'number', maximum: 10, inclusive: true, input: 11 },
    { code: 'too_big', origin: 'array', maximum: 100, input: [] },
    { code: 'invalid_format', format: 'regex', pattern: '^a$', input: 'b' },
    { code: 'invalid_format', format: 'url', input: 'b' },
    { code: 'invalid_format', format: 'datetime', input: 'b' },
    { code: 'invalid_format', format: 'uuid', input: 'b' },
    { code: 'invalid_format', format: 'starts_with', prefix: 'pr_', input: 'b' },
    { code: 'invalid_format', format: 'no-such-format', input: 'b' },
    { code: 'not_multiple_of', divisor: 5, input: 3 },
    { code: 'unrecognized_keys', keys: ['x'], input: {} },
    { code: 'invalid_union', errors: [], input: 1 },
    { code: 'invalid_key', origin: 'record', issues: [], input: 'k' },
    { code: 'invalid_element', origin: 'map', key: 'k', issues: [], input: 1 },
    { code: 'invalid_value', values: ['a', 'b'], input: 'c' },
    { code: 'invalid_value', values: ['refund'], input: 'c' },
    { code: 'custom', input: 1 },
    { code: 'custom', params: { en: 'Own.', fr: 'Propre.' }, input: 1 },
  ];
  it.each(issues.map((i) => [`${i.code} ${JSON.stringify(i)}`, i] as const))('%s', (_n, issue) => {
    const text = zodIssueText(issue);
    expect(text.en.trim()).not.toBe('');
    expect(text.fr).not.toBe(text.en);
    expect(englishWords(text.fr)).toEqual([]);
  });
});

describe('the error reference (/docs/errors)', () => {
  it.each(languages)('%s: one anchor per code with its status, title and what to do', (lang) => {
    const html = errorReferenceHtml(lang);
    expect(html).toContain(`<html lang="${lang}">`);
    for (const code of codes) {
      expect(html).toContain(`<section id="${code}">`);
      const e = entry(code);
      const section = html.slice(html.indexOf(`<section id="${code}">`)).split('</section>')[0]!;
      expect(section).toContain(String(e.status));
      expect(section).toContain(
        e.help[lang]
          .replace(/&/g, '&amp;')
          .replace(/"/g, '&quot;')
          .replace(/'/g, '&#39;')
          .replace(/</g, '&lt;')
          .replace(/>/g, '&gt;'),
      );
    }
    expect(errorReference(lang).map((e) => e.code)).toEqual(codes);
  });

  it('the French page holds no English prose', () => {
    const text = errorReferenceHtml('fr')
      .replace(/<style>[\s\S]*?<\/style>/, ' ')
      .replace(/<[^>]+>/g, ' ')
      .replace(/&#39;/g, "'")
      .replace(/&[a-z]+;/g, ' ');
    expect(englishWords(text.replace('English version', ''))).toEqual([]);
  });
});
