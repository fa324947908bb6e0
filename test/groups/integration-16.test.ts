import { runGroup } from './run-group';

runGroup('integration', 16);
