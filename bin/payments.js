#!/usr/bin/env node
'use strict';
// The operator CLI (`npx payments ...`). It runs the TypeScript sources through tsx, a runtime
// dependency, so it works right after `npm ci` with no build step.
require('tsx/cjs');
require('../src/cli/index.ts');
