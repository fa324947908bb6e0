import type { Client } from '@temporalio/client';
import type { Connection } from 'mongoose';
import type { Config } from '../config';

// What every command receives; apart from program.ts so a command module can name it without
// importing the program that registers it (an import cycle).

export interface CliContext {
  /** Opens MongoDB on first use, so `--help` needs no database. */
  mongo(): Promise<Connection>;
  nodeEnv: 'development' | 'test' | 'production';
  stdout(text: string): void;
  /** Connects to Temporal on first use (`transactions show`). */
  temporal?(): Promise<Client>;
  /** The service's configuration (`reconcile`: the operator endpoint, the task queue). */
  config?: Config;
  /** A command that succeeded but reports something to act on (`reconcile`: 2). */
  setExitCode?(code: number): void;
}
