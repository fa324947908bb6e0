import { en } from '../../dashboard/src/locales/en';
import { fr } from '../../dashboard/src/locales/fr';
import { englishOnlyPieces, englishSeen } from '../helpers/english-on-french';

// The browser test's check that a French screen shows no English (issue 44 §4) is driven by the
// locale files: what it looks for, and what it must not flag.
describe('English on a French screen', () => {
  const pieces = englishOnlyPieces();

  it('looks for the English labels and sentences that French translates', () => {
    expect(pieces).toEqual(expect.arrayContaining([en.nav.home, en.common.cancel, en.layout.skip]));
    // Cut at interpolations: "Page {{page}}" is the same in both; a sentence's fixed words are kept.
    expect(pieces).not.toContain(en.common.page);
  });

  it('does not flag a word both languages share, nor a word inside another', () => {
    expect(en.common.actions).toBe(fr.common.actions);
    expect(pieces).not.toContain(en.common.actions);
    expect(englishSeen(`${fr.nav.home}\n${fr.common.actions}\nHomeward`, pieces)).toEqual([]);
  });

  it('names what a French screen shows in English, the longest piece once', () => {
    expect(englishSeen(`${fr.nav.home}\n${en.layout.skip}\n${en.common.cancel}`, pieces)).toEqual(
      [en.layout.skip, en.common.cancel].sort((a, b) => b.length - a.length),
    );
  });
});
