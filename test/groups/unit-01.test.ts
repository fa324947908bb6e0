import { runGroup } from './run-group';

runGroup('unit', 1);
