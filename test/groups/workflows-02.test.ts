import { runGroup } from './run-group';

runGroup('workflows', 2);
