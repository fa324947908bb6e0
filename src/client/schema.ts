// The API's types, from the one generated copy the Node SDK holds (sdk/node/src/generated/openapi.ts,
// written from sdk/openapi.json by `npm run generate:client`): the service's typed client, the
// dashboard and the SDK read the same types, and CI fails when they are stale (`npm run check:sdks`).
export type { $defs, components, operations, paths, webhooks } from '../../sdk/node/src/generated/openapi';
