// Copies the static files that compiled modules read next to themselves into dist/ (npm run build):
// tsc emits only what it compiles, and the image ships dist/ alone.
import { cpSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Folders of static files, relative to the repository root; each lands at the same place under outDir. */
export const assetDirs = ['src/checkout/assets'];

export function copyAssets(outDir: string, root = resolve(__dirname, '..')): string[] {
  return assetDirs.map((dir) => {
    const target = join(outDir, dir);
    cpSync(join(root, dir), target, { recursive: true });
    return target;
  });
}

if (require.main === module) {
  for (const target of copyAssets(resolve(__dirname, '../dist'))) console.log(`assets: ${target}`);
}
