// Sandbox test numbers for what `sandboxScenario` cannot express: the last four digits of the
// customer's number select the behaviour (docs/sandbox.md lists them with example numbers).
export type MagicBehaviour =
  /** The collection fails (operator timeout); the partner check finds the funds once a test says so. */
  | 'partner-collects-on-signal'
  /** The collection fails (operator timeout); the partner check finds the funds at its Nth call. */
  | 'partner-collects-after-checks'
  /** The final outcome is reached but no callback is ever sent: only polling finds it. */
  | 'no-callback'
  /** The first request answers after the gateway gave up; the retry is answered (one collection). */
  | 'slow-first-answer';

export const magicSuffixes: Record<string, MagicBehaviour> = {
  '9901': 'partner-collects-on-signal',
  '9902': 'partner-collects-after-checks',
  '9903': 'no-callback',
  '9904': 'slow-first-answer',
};

export function magicBehaviour(msisdn: string): MagicBehaviour | null {
  return magicSuffixes[msisdn.slice(-4)] ?? null;
}
