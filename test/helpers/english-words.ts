// Finds English prose in a text that should be French. Identifiers are not prose: codes
// (VALIDATION_ERROR), field names and paths (payin.msisdn, externalReference), headers
// (X-Idempotency-Key), URLs and paths (/v1/payin), enum values (MTN_CI) and numbers are skipped;
// what is left is checked against common English words that are not also French. Field names that
// are English words a French message names as is (amount, provider, reason, from, to) are left
// out of the list on purpose.

const englishOnly = new Set(
  `the is are was were be been being must should would could can cannot not no yes and with without
  than that this these those there their your you we our it its of for by an any all each every
  some only such as at least most too small big large greater less more expected received invalid
  required missing unknown wrong bad allowed accepted forbidden found already exists use send sent
  retry later please try again request requests response field fields value values key keys
  characters character letters digits number numbers string strings item items array object
  payment payments refund refunds payout payouts customer account balance error errors
  limit reached period after before between within must into onto over under when which while
  input empty whole decimal short address addresses link here
  server dependency unavailable available temporarily still being processed
  operator number's does doesn't isn't can't won't don't has have had do did done what why how
  who whose time times day days other another same new old first last next previous`
    .split(/\s+/)
    .filter(Boolean),
);

/** The words of `text` that are English, identifiers aside. */
export function englishWords(text: string): string[] {
  return (
    text
      // URLs, API paths and anything in quotes or backticks are names, not prose.
      .replace(/https?:\/\/\S+/g, ' ')
      .replace(/(?:GET|POST|DELETE|PUT|PATCH)\s+\S+/g, ' ')
      .replace(/\/\S*/g, ' ')
      .replace(/`[^`]*`|"[^"]*"|«[^»]*»/g, ' ')
      .replace(/\S+\[\]/g, ' ')
      .split(/[\s,;:()!?[\]{}<>…·]+/)
      .map((w) => w.replace(/^['’]+|[.'’]+$/g, ''))
      // Identifiers: with _ . / # @ = + * - or a digit, or capitals after the first letter.
      .filter((w) => w !== '' && !/[_./#@=+*\d-]/.test(w) && !/^.[^A-Z]*[A-Z]/.test(w))
      .filter((w) => englishOnly.has(w.toLowerCase()))
  );
}
