// UTC calendar days as reconciliation names them (YYYY-MM-DD). Pure: the workflow imports it too.

/** The UTC day of an instant. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The day `days` after (or before, negative) a UTC day. */
export function shiftDay(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000));
}

/** The UTC day before the one `at` falls in: what a daily run reconciles. */
export function previousUtcDay(at: Date): string {
  return shiftDay(utcDay(at), -1);
}
