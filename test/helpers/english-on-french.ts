import { en } from '../../dashboard/src/locales/en';
import { fr } from '../../dashboard/src/locales/fr';

// What of the dashboard's English may not be seen on a French screen, read from the locale files
// themselves, so a text added to en.ts is checked the day it is added (issue 44 §4).

function leaves(tree: unknown, path = ''): Array<[string, string]> {
  if (typeof tree === 'string') return [[path, tree]];
  if (tree && typeof tree === 'object')
    return Object.entries(tree).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
  return [];
}

/**
 * The pieces of every English text that its French differs from: cut at interpolations
 * (`{{count}}`) and sentence marks, kept when at least 4 letters long and found nowhere in the French
 * texts (so "Actions", "Webhooks" or "Page" — the same in both — are not English on a French screen).
 * A single word counts when it is capitalized, as a label is: "payout" or "refunds" alone are also
 * the API's words a screen shows as data (an event type, a path in the request log).
 */
export function englishOnlyPieces(): string[] {
  const french = new Map(leaves(fr));
  const frenchText = [...french.values()].join('\n');
  const pieces = new Set<string>();
  for (const [path, text] of leaves(en)) {
    if (french.get(path) === text) continue;
    for (const raw of text.split(/\{\{[^}]*\}\}|[.:;,!?…()"“”·—–]|\s-\s/)) {
      const piece = raw.trim().replace(/\s+/g, ' ');
      if ((piece.match(/\p{L}/gu) ?? []).length < 4) continue;
      if (!piece.includes(' ') && !/^\p{Lu}/u.test(piece)) continue;
      if (containsWord(frenchText, piece)) continue;
      pieces.add(piece);
    }
  }
  return [...pieces].sort((a, b) => b.length - a.length);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `piece` in `text` as whole words (case kept: "Refund" is a label, "refund" may be data). */
export function containsWord(text: string, piece: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escape(piece)}(?![\\p{L}\\p{N}_])`, 'u').test(text);
}

/** The English pieces a French screen's text shows (empty when none). */
export function englishSeen(screenText: string, pieces = englishOnlyPieces()): string[] {
  const seen: string[] = [];
  let rest = screenText;
  for (const piece of pieces) {
    if (!containsWord(rest, piece)) continue;
    seen.push(piece);
    // A longer piece found is not found again through its shorter parts.
    rest = rest.split(piece).join(' ');
  }
  return seen;
}
