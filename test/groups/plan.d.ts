export interface GroupPlan {
  groups: string[][];
  alone: string[];
}
export const PROJECTS: Record<string, { dir: string; groups: number }>;
export const root: string;
export function plan(project: string): GroupPlan;
export function entries(project: string): string[];
export function testMatch(project: string): string[];
export function expectedSeconds(absPath: string): number | undefined;
export function testFiles(dir: string): string[];
