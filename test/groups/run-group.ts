import { join } from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain CommonJS shared with jest.config.js
const { plan, root } = require('./plan.js') as typeof import('./plan.js');

/**
 * Registers the member files of a group (test/groups/plan.js), each inside a describe named after
 * its path, so its file-level hooks stay its own and a failure names the file.
 */
export function runGroup(project: 'unit' | 'integration' | 'workflows', index: number): void {
  const files = plan(project).groups[index - 1] ?? [];
  if (files.length === 0) {
    it.skip(`${project} group ${index} has no file`, () => {});
    return;
  }
  for (const file of files) {
    describe(file, () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- jest's require, registered in this describe
      require(join(root, file));
    });
  }
}
