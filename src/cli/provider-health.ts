import { Command } from 'commander';
import { z } from 'zod';
import { modes } from '../domain/modes';
import {
  countries,
  operatorsByCountry,
  providerName,
  type Country,
  type OperatorCode,
  type ProviderName,
} from '../domain/operators';
import { buildProviderHealth, healthOperations, healthStates } from '../operators/health';
import { parseDuration } from '../infra/duration';
import type { CliContext } from './context';

// `payments providers …`: the provider states (docs/provider-health.md) and the ops override that
// forces one (an announced outage, a recovery the measure has not seen yet, tests).

interface Helpers {
  print(json: boolean | undefined, value: unknown, human: () => string): void;
  table(head: string[], rows: string[][]): string;
  fail(message: string): Error;
}

const providerNames = countries.flatMap((c) => operatorsByCountry[c].map((o) => providerName(o, c)));
const durationMs = (text: string): number | null => {
  try {
    return parseDuration(text.trim());
  } catch {
    return null;
  }
};

export function providerHealthCommand(ctx: CliContext, h: Helpers): Command {
  const parse = <T>(schema: z.ZodType<T>, value: string, what: string): T => {
    const r = schema.safeParse(value.trim());
    if (!r.success) throw h.fail(`${what} must be one of the allowed values, not "${value}"`);
    return r.data;
  };
  const mode = (v: string) => parse(z.enum(modes), v.toLowerCase(), '--mode');
  const provider = (v: string) =>
    parse(z.enum(providerNames as [ProviderName, ...ProviderName[]]), v.toUpperCase(), 'provider');
  const operation = (v: string) => parse(z.enum(healthOperations), v.toLowerCase(), 'operation');
  const health = async () => buildProviderHealth(await ctx.mongo(), ctx.config ?? {}, { cacheMs: 0 });

  const cmd = new Command('providers').description('Provider states per operation, and the ops override.');
  cmd
    .command('health')
    .description('Each provider state per operation in one mode, with the reason.')
    .option('--mode <mode>', 'test or live', 'live')
    .option('--json', 'one JSON document')
    .action(async (opts: { mode: string; json?: boolean }) => {
      const m = mode(opts.mode);
      const ph = await health();
      const rows: {
        provider: string;
        operation: string;
        state: string;
        since: string | null;
        reason: string;
      }[] = [];
      for (const name of providerNames) {
        const [operator, country] = name.split('_') as [OperatorCode, Country];
        for (const op of healthOperations) {
          const a = await ph.explain(m, operator, country, op);
          rows.push({ provider: name, operation: op, ...a });
        }
      }
      h.print(opts.json, { mode: m, states: rows }, () =>
        h.table(
          ['provider', 'operation', 'state', 'since', 'reason'],
          rows.map((r) => [r.provider, r.operation, r.state, r.since ?? '', r.reason]),
        ),
      );
    });
  cmd
    .command('override <provider> <operation> <state>')
    .description('Forces a state (operational, delayed, closed) until it expires.')
    .option('--mode <mode>', 'test or live', 'live')
    .option('--for <duration>', 'how long, e.g. 30m or 2h', '1h')
    .requiredOption('--reason <text>', 'why (shown in `providers health`; no personal data)')
    .option('--json', 'one JSON document')
    .action(
      async (
        p: string,
        o: string,
        s: string,
        opts: { mode: string; for: string; reason: string; json?: boolean },
      ) => {
        const forMs = durationMs(opts.for);
        if (!forMs) throw h.fail(`--for must be a duration such as 30m or 2h, not "${opts.for}"`);
        const state = parse(z.enum(healthStates), s.toLowerCase(), 'state');
        const m = mode(opts.mode);
        const { until } = await (
          await health()
        ).setOverride(m, provider(p), operation(o), state, forMs, opts.reason);
        h.print(
          opts.json,
          { mode: m, provider: provider(p), operation: operation(o), state, until },
          () => `${provider(p)} ${operation(o)} (${m}) forced ${state} until ${until}`,
        );
      },
    );
  cmd
    .command('clear <provider> <operation>')
    .description('Removes an override: the measure decides again.')
    .option('--mode <mode>', 'test or live', 'live')
    .option('--json', 'one JSON document')
    .action(async (p: string, o: string, opts: { mode: string; json?: boolean }) => {
      const m = mode(opts.mode);
      const cleared = await (await health()).clearOverride(m, provider(p), operation(o));
      h.print(opts.json, { cleared }, () => (cleared ? 'override cleared' : 'no override'));
    });
  return cmd;
}
