// What the fault suite runs: a plan per transaction (its kind, what the operator will do, and the
// faults on each step of its conversation with the operator), drawn by fast-check from a fixed
// seed, and the proxy rules that apply those faults to that transaction only. One module each:
export * from './plan';
export * from './draw';
export * from './proxy-rules';
