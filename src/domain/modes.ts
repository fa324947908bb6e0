// Test and live modes. Every merchant has test credentials (`mk_test_…`) and live credentials
// (`mk_live_…`); every object it creates belongs to the mode of the key that created it. The mode is
// part of the tenant key ("scope") that every store, unique index, workflow id and event stream is
// keyed by: live data under the merchant id itself, test data under `<merchantId>_test`. The two
// modes cannot see each other by construction, not by a filter each query has to remember.

export const modes = ['test', 'live'] as const;
export type Mode = (typeof modes)[number];

const testSuffix = '_test';

/** The tenant key of a merchant's data in one mode. */
export function scopeOf(merchantId: string, mode: Mode): string {
  return mode === 'live' ? merchantId : `${merchantId}${testSuffix}`;
}

/** The mode a tenant key belongs to. */
export function modeOfScope(scope: string): Mode {
  return scope.endsWith(testSuffix) ? 'test' : 'live';
}

/** `livemode` as records show it. */
export function isLiveScope(scope: string): boolean {
  return modeOfScope(scope) === 'live';
}

/** The merchant a tenant key belongs to (its settings, name and status are shared by both modes). */
export function merchantOfScope(scope: string): string {
  return scope.endsWith(testSuffix) ? scope.slice(0, -testSuffix.length) : scope;
}

/** The mode of an api_key, from its prefix. */
export function modeOfApiKey(apiKey: string): Mode {
  return apiKey.startsWith('mk_live_') ? 'live' : 'test';
}
