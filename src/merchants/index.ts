// Merchants, their API credentials and the authentication of API calls.
export * from './merchant';
export { MerchantService, type MerchantServiceOptions } from './service';
export type { KeyMode } from './credentials';
export type { DeploymentMode } from './deployment';
export { merchantOfScope, modeOfApiKey, modeOfScope, scopeOf, isLiveScope, type Mode } from '../domain/modes';
