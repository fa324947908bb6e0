import type { Config } from '../../src/config';
import { ApiClient } from './http';
import { createTestMerchant, fundMerchant, type TestMerchant } from './merchants';
import { startStack, type StackOptions, type TestStack } from './stack';
import { startReceiver, type WebhookReceiver } from './webhook-receiver';

// The set-up most integration files share: a stack for the file, a merchant and its API client,
// maybe funded, maybe a webhook receiver, all stopped after the file. `useStack` registers those
// hooks where it is called (file or describe level) and returns stand-ins for what they create.

export interface UseStackOptions extends StackOptions {
  /** Configuration overrides, as `startStack`'s first argument. */
  config?: Partial<Record<keyof Config, string>>;
  /** The merchant's name (createTestMerchant's default otherwise), or `false` for no merchant. */
  merchant?: string | false;
  /** A new merchant (and client) before every test rather than one for the file. */
  merchantPerTest?: boolean;
  /** Credits the merchant's XOF main account with this many minor units from the sandbox funding. */
  fund?: number;
  /** Starts a webhook receiver (test/helpers/webhook-receiver.ts) beside the stack. */
  receiver?: boolean;
  /** Runs after the file's tests, before the stack stops (e.g. a server the worker is still calling). */
  beforeStop?: () => Promise<void> | void;
}

export interface StackHandle {
  stack: TestStack;
  merchant: TestMerchant;
  /** The merchant's client on the stack's API. */
  api: ApiClient;
  /** A client without credentials (the customer's browser, a caller who forgot them). */
  anonymous: ApiClient;
  receiver: WebhookReceiver;
}

/**
 * Registers the hooks and returns stand-ins that read through to what they created, so a file can
 * write `const { stack, api } = useStack()` at its top and use them in its tests and hooks as usual.
 */
export function useStack(options: UseStackOptions = {}): StackHandle {
  const {
    config,
    merchant: name,
    merchantPerTest,
    fund,
    receiver: withReceiver,
    beforeStop,
    ...opts
  } = options;
  const current: Partial<StackHandle> = {};

  const newMerchant = async (stack: TestStack): Promise<void> => {
    current.merchant = await createTestMerchant(stack, ...(name ? [name] : []));
    current.api = new ApiClient(stack.baseUrl, current.merchant.credentials);
    if (fund) await fundMerchant(stack, current.merchant.merchantId, fund);
  };

  beforeAll(async () => {
    const stack = (current.stack = await startStack(config, opts));
    current.anonymous = new ApiClient(stack.baseUrl, null);
    if (withReceiver) current.receiver = await startReceiver();
    if (name !== false && !merchantPerTest) await newMerchant(stack);
  });
  if (name !== false && merchantPerTest) beforeEach(() => newMerchant(current.stack!));
  afterAll(async () => {
    await beforeStop?.();
    await current.receiver?.close();
    await current.stack?.stop();
  });

  return {
    stack: standIn('stack', () => current.stack),
    merchant: standIn('merchant', () => current.merchant),
    api: standIn('api', () => current.api),
    anonymous: standIn('anonymous', () => current.anonymous),
    receiver: standIn('receiver', () => current.receiver),
  };
}

/**
 * An object that forwards every access to `current()`, read at the moment of use: the hooks set the
 * values after the file's top level has run. Methods are bound to the real object.
 */
export function standIn<T extends object>(what: string, current: () => T | undefined): T {
  const target = (): T => {
    const value = current();
    if (value === undefined)
      throw new Error(`useStack: no ${what} (not started yet, or not asked for in the options)`);
    return value;
  };
  return new Proxy({} as T, {
    get(_, prop) {
      const value = target();
      const member: unknown = Reflect.get(value, prop, value);
      return typeof member === 'function' ? member.bind(value) : member;
    },
    set: (_, prop, v) => Reflect.set(target(), prop, v),
    has: (_, prop) => Reflect.has(target(), prop),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_, prop) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), prop);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}
