/**
 * The SDK's version: the API's major.minor (`apiVersion`) and a patch of its own, for the SDK's fixes
 * (docs/decisions/sdks/sdk-version-api-major-minor-own-patch.md). package.json says the same: the
 * manifest (npm run check:sdks) fails when they differ.
 */
export const sdkVersion = '1.0.2';
