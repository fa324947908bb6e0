import type { Server } from 'node:http';
import { createSimulatorApp, type Simulator, type SimulatorOptions } from './app';

export interface RunningSimulator {
  url: string;
  simulator: Simulator;
  stop(): Promise<void>;
}

/** Listens on host:port (0 picks a free port) and answers the simulator's base URL. */
export async function startSimulator(
  opts: SimulatorOptions & { port: number; host?: string },
): Promise<RunningSimulator> {
  const simulator = createSimulatorApp(opts);
  const host = opts.host ?? '127.0.0.1';
  const server = await new Promise<Server>((resolve, reject) => {
    const s = simulator.app.listen(opts.port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    simulator,
    stop: async () => {
      simulator.close();
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}
