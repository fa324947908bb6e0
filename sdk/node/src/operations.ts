import { sdkMethods } from './generated/resources.js';
import type { ApiOperationId } from './generated/operations.js';

/**
 * The SDK's method for each operation of the API under /v1/, as `resource.method` on a MomoPayments
 * client: generated with the resources from sdk/codegen/resources.json, the manifest the three SDKs
 * share. manifest.sh reads this table and proves each entry by calling the method.
 */
export { sdkMethods, deprecatedResourceAliases } from './generated/resources.js';

export type SdkMethodName = (typeof sdkMethods)[ApiOperationId];
