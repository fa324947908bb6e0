// The bench's table on the console (the JSON file holds every figure).

/** A read that was not a 200 measured nothing: say so next to the figure. */
const nonOk = (x: { non2xx: number }) => (x.non2xx > 0 ? ` (${x.non2xx} non-2xx!)` : '');

export function printTable(r: {
  e2e: {
    completedPerSecond: number;
    createPerSecond: number;
    createLatencyMs: { p50: number; p99: number };
    non2xx: number;
    neverCreated: number;
  };
  bound: { workflowsPerSecond: number; activitiesPerWorkflow: number };
  minimal: { workflowsPerSecond: number };
  ratioE2eToBound: number;
  ratioE2eToMinimal: number;
  latency: { refused: Record<string, number>; neverCreated: number } & Record<
    'oneClient' | 'clients16',
    {
      api: { p50: number; p99: number };
      bareRoute: { p50: number; p99: number };
      ratioP50: number;
      ratioP99: number;
    }
  >;
  temporalCost: Record<string, { historyEvents: number; billableActions: number; workflows: number }>;
  reads: {
    at1k: { stored: number; perSecond: number; non2xx: number; latencyMs: { p50: number; p99: number } };
    atStored: { stored: number; perSecond: number; non2xx: number; latencyMs: { p50: number; p99: number } };
    ratio: number;
  };
  ledger: { hotAccount: { transfersPerSecond: number }; spread100: { transfersPerSecond: number } };
  cpu: Record<'e2e' | 'bound' | 'minimal', Record<string, number | null>> & { loadAverage: number[] };
  activities: Record<string, { executions: number; meanMs: number }>;
  perKind: Record<string, { storeCommands: number; temporalEvents: number }>;
  cpuPerPayin: Record<string, number | null>;
  regularActivities: {
    completedPerSecond: number;
    ratioLocalToRegular: number;
    ratioToMinimal: number;
    createLatencyMs: { p50: number; p99: number };
    payinWorkflowOnly: { historyEvents: number } | null;
    cpuPerPayin: Record<string, number | null>;
  } | null;
  eagerActivities: boolean;
}): void {
  const cpuRow = (phase: 'e2e' | 'bound' | 'minimal'): [string, string] => {
    const { wallSeconds, ...perProcess } = r.cpu[phase];
    return [
      `CPU s per process during ${phase} (${wallSeconds} s wall)`,
      Object.entries(perProcess)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ];
  };
  const rows: [string, string][] = [
    ['payins completed /s (success + credit + webhook)', String(r.e2e.completedPerSecond)],
    ['payins created /s', String(r.e2e.createPerSecond)],
    ['creation latency p50 / p99 (ms)', `${r.e2e.createLatencyMs.p50} / ${r.e2e.createLatencyMs.p99}`],
    // Counted, not waited for: a refused creation may have created nothing (bench/common.ts createdOf).
    ...(r.e2e.non2xx || r.latency.neverCreated || Object.keys(r.latency.refused).length
      ? ([
          [
            'creations not answered 201: payins phase; latency phase by status (of which created nothing)',
            `${r.e2e.non2xx} (${r.e2e.neverCreated}); ${JSON.stringify(r.latency.refused)} (${r.latency.neverCreated})`,
          ],
        ] as [string, string][])
      : []),
    [
      `bound: bare workflows /s (${r.bound.activitiesPerWorkflow} no-op activities)`,
      String(r.bound.workflowsPerSecond),
    ],
    ['ratio e2e / bound', String(r.ratioE2eToBound)],
    ['minimal durable transaction /s (start, 1 no-op activity, end)', String(r.minimal.workflowsPerSecond)],
    ['ratio e2e / minimal', String(r.ratioE2eToMinimal)],
    ...Object.entries(r.perKind).map(([k, c]): [string, string] => [
      `${k}: store commands / Temporal events per whole life (webhooks included)`,
      `${c.storeCommands} / ${c.temporalEvents}`,
    ]),
    [
      'CPU s per payin per process (payins phase)',
      Object.entries(r.cpuPerPayin)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ],
    ...(r.regularActivities
      ? ((): [string, string][] => {
          const g = r.regularActivities;
          return [
            [
              'regular activities (PAYIN_LOCAL_ACTIVITIES=false): payins completed /s',
              String(g.completedPerSecond),
            ],
            ['ratio local / regular activities (payins/s, same rounds)', String(g.ratioLocalToRegular)],
            [
              'regular activities: ratio to minimal; creation p50 / p99 ms',
              `${g.ratioToMinimal}; ${g.createLatencyMs.p50} / ${g.createLatencyMs.p99}`,
            ],
            [
              'regular activities: payin workflow history events',
              String(g.payinWorkflowOnly?.historyEvents ?? '?'),
            ],
            [
              'regular activities: CPU s per payin per process',
              Object.entries(g.cpuPerPayin)
                .filter(([, v]) => v !== null)
                .map(([k, v]) => `${k} ${v}`)
                .join(', '),
            ],
          ];
        })()
      : []),
    ['eager activity dispatch (system.enableActivityEagerExecution)', r.eagerActivities ? 'on' : 'off'],
    ...(['oneClient', 'clients16'] as const).map((k): [string, string] => {
      const l = r.latency[k];
      return [
        `creation p50 / p99 ms, ${k === 'oneClient' ? 'one client' : '16 clients'}: API vs bare route (ratio)`,
        `${l.api.p50} / ${l.api.p99} vs ${l.bareRoute.p50} / ${l.bareRoute.p99} (${l.ratioP50} / ${l.ratioP99})`,
      ];
    }),
    ...Object.entries(r.temporalCost).map(([k, c]): [string, string] => [
      `Temporal ${k}: workflows / history events / billable actions`,
      `${c.workflows} / ${c.historyEvents} / ${c.billableActions}`,
    ]),
    [
      `reads /s, p50 / p99 ms at ${r.reads.at1k.stored}`,
      `${r.reads.at1k.perSecond}, ${r.reads.at1k.latencyMs.p50} / ${r.reads.at1k.latencyMs.p99}${nonOk(r.reads.at1k)}`,
    ],
    [
      `reads /s, p50 / p99 ms at ${r.reads.atStored.stored}`,
      `${r.reads.atStored.perSecond}, ${r.reads.atStored.latencyMs.p50} / ${r.reads.atStored.latencyMs.p99}${nonOk(r.reads.atStored)}`,
    ],
    ['reads ratio (large / 1k)', String(r.reads.ratio)],
    ['ledger transfers /s, one hot account', String(r.ledger.hotAccount.transfersPerSecond)],
    ['ledger transfers /s, over 100 accounts', String(r.ledger.spread100.transfersPerSecond)],
    cpuRow('e2e'),
    cpuRow('bound'),
    cpuRow('minimal'),
    ['load average at the end (1, 5, 15 min)', r.cpu.loadAverage.join(', ')],
    [
      'activity mean ms (executions), the 6 longest in total',
      Object.entries(r.activities)
        .slice(0, 6)
        .map(([type, a]) => `${type} ${a.meanMs} (${a.executions})`)
        .join(', '),
    ],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  console.log('');
  for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);
}
