import { z } from 'zod';
import type { Language, Text } from './i18n';

// Our wording of every issue zod raises, in English and French. zod's own locales read as a
// machine's ("Entrée invalide : chaîne de caractères attendu, indéfini reçu"), so none of them is
// used: a merchant or a customer reads what is wrong and what is expected, in their language.

type RawIssue = z.core.$ZodRawIssue;

/** A text with one value per language, built from the same arguments. */
const t = (en: string, fr: string): Text => ({ en, fr });

/** What a value is expected to be, as a noun ("a string" / "une chaîne de caractères"). */
const typeNouns: Record<string, Text> = {
  string: t('a string', 'une chaîne de caractères'),
  number: t('a number', 'un nombre'),
  int: t('a whole number', 'un nombre entier'),
  bigint: t('a whole number', 'un nombre entier'),
  boolean: t('true or false', 'true ou false'),
  object: t('an object', 'un objet'),
  array: t('an array', 'un tableau'),
  date: t('a date', 'une date'),
  null: t('null', 'null'),
  undefined: t('absent', 'absent'),
  record: t('an object', 'un objet'),
  map: t('an object', 'un objet'),
  set: t('an array', 'un tableau'),
  literal: t('a fixed value', 'une valeur fixe'),
  file: t('a file', 'un fichier'),
  function: t('a function', 'une fonction'),
  symbol: t('a symbol', 'un symbole'),
  nan: t('a number', 'un nombre'),
};

/** What a value received is, as a noun: JSON's types, since bodies and queries are JSON or text. */
function receivedNoun(input: unknown): Text {
  if (input === null) return t('null', 'null');
  if (Array.isArray(input)) return typeNouns.array!;
  if (typeof input === 'number') {
    return Number.isInteger(input) ? typeNouns.number! : t('a decimal number', 'un nombre décimal');
  }
  return typeNouns[typeof input] ?? t('another type', 'un autre type');
}

/** Formats as nouns, with an example where one helps. */
const formatNouns: Record<string, Text> = {
  email: t('an email address', 'une adresse e-mail'),
  url: t('a web address (http or https URL)', 'une adresse web (URL http ou https)'),
  uuid: t('a UUID', 'un UUID'),
  guid: t('a UUID', 'un UUID'),
  datetime: t(
    'an ISO 8601 date and time with its offset, such as 2026-01-31T12:00:00Z',
    'une date et heure ISO 8601 avec son décalage, par exemple 2026-01-31T12:00:00Z',
  ),
  date: t('an ISO 8601 date, such as 2026-01-31', 'une date ISO 8601, par exemple 2026-01-31'),
  time: t('an ISO 8601 time, such as 12:00:00', 'une heure ISO 8601, par exemple 12:00:00'),
  duration: t('an ISO 8601 duration, such as PT15M', 'une durée ISO 8601, par exemple PT15M'),
  ipv4: t('an IPv4 address', 'une adresse IPv4'),
  ipv6: t('an IPv6 address', 'une adresse IPv6'),
  cidrv4: t('an IPv4 range', 'une plage IPv4'),
  cidrv6: t('an IPv6 range', 'une plage IPv6'),
  base64: t('base64 text', 'du texte en base64'),
  base64url: t('base64url text', 'du texte en base64url'),
  hostname: t('a host name', "un nom d'hôte"),
  e164: t('an international number such as +2250700000001', 'un numéro international tel que +2250700000001'),
  jwt: t('a JWT', 'un JWT'),
  lowercase: t('lowercase text', 'du texte en minuscules'),
  uppercase: t('uppercase text', 'du texte en majuscules'),
};

const plural = (n: number | bigint, one: string, many: string) => (Number(n) === 1 ? one : many);

function tooSmall(i: Extract<RawIssue, { code: 'too_small' }>): Text {
  const n = i.minimum;
  const exact = i.exact === true;
  switch (i.origin) {
    case 'string':
      if (exact)
        return t(`Must be exactly ${n} characters long.`, `Doit compter exactement ${n} caractères.`);
      if (Number(n) === 1) return t('Must not be empty.', 'Ne doit pas être vide.');
      return t(
        `Must be at least ${n} ${plural(n, 'character', 'characters')} long.`,
        `Doit compter au moins ${n} ${plural(n, 'caractère', 'caractères')}.`,
      );
    case 'array':
    case 'set':
      if (exact) return t(`Must hold exactly ${n} items.`, `Doit contenir exactement ${n} éléments.`);
      if (Number(n) === 1) return t('Must hold at least one item.', 'Doit contenir au moins un élément.');
      return t(`Must hold at least ${n} items.`, `Doit contenir au moins ${n} éléments.`);
    case 'date':
      return t(`Must be on or after ${String(n)}.`, `Doit être égale ou postérieure à ${String(n)}.`);
    default:
      return i.inclusive === false
        ? t(`Must be greater than ${n}.`, `Doit être supérieur à ${n}.`)
        : t(`Must be at least ${n}.`, `Doit être supérieur ou égal à ${n}.`);
  }
}

function tooBig(i: Extract<RawIssue, { code: 'too_big' }>): Text {
  const n = i.maximum;
  const exact = i.exact === true;
  switch (i.origin) {
    case 'string':
      if (exact)
        return t(`Must be exactly ${n} characters long.`, `Doit compter exactement ${n} caractères.`);
      return t(
        `Must be at most ${n} ${plural(n, 'character', 'characters')} long.`,
        `Doit compter au plus ${n} ${plural(n, 'caractère', 'caractères')}.`,
      );
    case 'array':
    case 'set':
      if (exact) return t(`Must hold exactly ${n} items.`, `Doit contenir exactement ${n} éléments.`);
      return t(`Must hold at most ${n} items.`, `Doit contenir au plus ${n} éléments.`);
    case 'date':
      return t(`Must be on or before ${String(n)}.`, `Doit être égale ou antérieure à ${String(n)}.`);
    default:
      return i.inclusive === false
        ? t(`Must be less than ${n}.`, `Doit être inférieur à ${n}.`)
        : t(`Must be at most ${n}.`, `Doit être inférieur ou égal à ${n}.`);
  }
}

/** Values as JSON (quoted strings): they are to be sent as they are, not read as words. */
const listValues = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

/** The noun of what one branch of a union expected, when its first issue says it plainly. */
function expectedNoun(issue: { code?: string; path?: PropertyKey[] } & Record<string, unknown>): Text | null {
  if (issue.path && issue.path.length > 0) return null;
  if (issue.code === 'invalid_format') return formatNouns[issue.format as string] ?? null;
  if (issue.code === 'invalid_type') return typeNouns[issue.expected as string] ?? null;
  return null;
}

/** Messages of our own regex checks, by check (see `matches`). */
const patternTexts = new WeakMap<object, Text>();

/**
 * A regex check that says in both languages what it wants, e.g.
 * `z.string().check(matches(/^\d{4,8}$/, fieldMessages.otpDigits))`: the OpenAPI document still
 * states the pattern, and the error map finds the wording by the check that failed.
 */
export function matches(pattern: RegExp, text: Text): z.core.$ZodCheck<string> {
  const check = z.regex(pattern);
  patternTexts.set(check, text);
  return check;
}

/** The message of one issue in one language; every code zod can raise has one. */
export function zodIssueText(issue: RawIssue): Text {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return t('Required.', 'Obligatoire.');
      // A query parameter coerced to a number that is none (`?limit=abc`).
      if (typeof issue.input === 'number' && Number.isNaN(issue.input))
        return t('Must be a number.', 'Doit être un nombre.');
      const expected = typeNouns[issue.expected] ?? t('another type', 'un autre type');
      const got = receivedNoun(issue.input);
      return t(`Must be ${expected.en}, not ${got.en}.`, `Doit être ${expected.fr}, et non ${got.fr}.`);
    }
    case 'too_small':
      return tooSmall(issue);
    case 'too_big':
      return tooBig(issue);
    case 'invalid_format': {
      const own = issue.inst ? patternTexts.get(issue.inst) : undefined;
      if (own) return own;
      const f = issue as unknown as { format: string; prefix?: string; suffix?: string; includes?: string };
      if (f.format === 'starts_with')
        return t(`Must start with "${f.prefix}".`, `Doit commencer par « ${f.prefix} ».`);
      if (f.format === 'ends_with')
        return t(`Must end with "${f.suffix}".`, `Doit finir par « ${f.suffix} ».`);
      if (f.format === 'includes')
        return t(`Must contain "${f.includes}".`, `Doit contenir « ${f.includes} ».`);
      if (f.format === 'regex') return t('Has an invalid format.', "N'a pas le format attendu.");
      const noun = formatNouns[f.format];
      return noun
        ? t(`Must be ${noun.en}.`, `Doit être ${noun.fr}.`)
        : t('Has an invalid format.', "N'a pas le format attendu.");
    }
    case 'not_multiple_of':
      return t(`Must be a multiple of ${issue.divisor}.`, `Doit être un multiple de ${issue.divisor}.`);
    case 'unrecognized_keys':
      // parseOr400 reports each unknown key at its own path, so the message speaks of one.
      return t('Unknown field: remove it.', 'Champ inconnu : retirez-le.');
    case 'invalid_union': {
      const firsts = (issue.errors ?? []).map((branch) => branch[0]);
      const nouns = firsts.map((i) => (i ? expectedNoun(i as never) : null));
      if (nouns.length > 0 && nouns.every((n) => n !== null)) {
        const en = [...new Set(nouns.map((n) => n.en))].join(', or ');
        const fr = [...new Set(nouns.map((n) => n.fr))].join(', ou ');
        return t(`Must be ${en}.`, `Doit être ${fr}.`);
      }
      return t('Matches none of the accepted forms.', 'Ne correspond à aucune des formes acceptées.');
    }
    case 'invalid_key': {
      const message = issue.issues[0]?.message;
      const inner = message ? message.charAt(0).toLowerCase() + message.slice(1) : undefined;
      return inner
        ? t(`Invalid key: ${inner}`, `Clé invalide : ${inner}`)
        : t('Invalid key.', 'Clé invalide.');
    }
    case 'invalid_element':
      return t('Invalid item.', 'Élément invalide.');
    case 'invalid_value':
      return issue.values.length === 1
        ? t(`Must be ${listValues(issue.values)}.`, `Doit valoir ${listValues(issue.values)}.`)
        : t(
            `Must be one of: ${listValues(issue.values)}.`,
            `Doit être l'une des valeurs : ${listValues(issue.values)}.`,
          );
    case 'custom': {
      const params = issue.params as Partial<Text> | undefined;
      if (params?.en && params.fr) return { en: params.en, fr: params.fr };
      return t('Invalid value.', 'Valeur invalide.');
    }
    default:
      return t('Invalid value.', 'Valeur invalide.');
  }
}

/**
 * Every issue of a parse, in the caller's language: `schema.safeParse(x, { error: zodErrorMap(lang) })`.
 * A custom check carries its own wording as `params: { en, fr }` (a Text of field-messages.ts).
 */
export function zodErrorMap(lang: Language): z.core.$ZodErrorMap {
  return (issue) => zodIssueText(issue)[lang];
}
