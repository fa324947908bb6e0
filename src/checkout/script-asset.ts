import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The checkout page's browser script is a file of its own (assets/checkout.js), linted as browser
// code; the build copies assets/ next to the compiled module (scripts/copy-assets.ts), so this
// path holds under tsx, ts-jest and dist/ alike.

/** Where the API serves the folder's files. */
export const checkoutAssetsPath = '/checkout/assets';

/** The folder of the checkout page's static files. */
export const checkoutAssetsDir = join(__dirname, 'assets');

/**
 * The script's URL, versioned by a hash of its content: browsers keep it a year (immutable), and a
 * deploy that changes the script changes the URL. Read at start-up, so an image built without the
 * asset fails at once instead of serving pages whose script is missing.
 */
export const checkoutScriptUrl = `${checkoutAssetsPath}/checkout.js?v=${createHash('sha256')
  .update(readFileSync(join(checkoutAssetsDir, 'checkout.js')))
  .digest('hex')
  .slice(0, 16)}`;
