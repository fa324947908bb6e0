// The CLI's own errors, apart from the commands that throw them: the entry point names them in its
// one-line messages without loading those commands' modules (each command loads its own on use).

/** A refusal the CLI words itself: printed as it is. */
export class CliError extends Error {}

/** `transactions show` found no such transaction for that merchant. */
export class TimelineNotFoundError extends Error {}
