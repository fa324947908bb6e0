// The roles and permissions live in src/contract/access (read by the API and the dashboard alike).
export * from '../../contract/access/roles';
