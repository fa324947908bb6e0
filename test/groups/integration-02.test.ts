import { runGroup } from './run-group';

runGroup('integration', 2);
