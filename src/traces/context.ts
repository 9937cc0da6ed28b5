/**
 * The active OpenTelemetry context through async calls, on node:async_hooks' AsyncLocalStorage
 * (what @opentelemetry/context-async-hooks does; the few lines are here rather than one more
 * dependency).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

export class AsyncContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(context, () => fn.apply(thisArg, args));
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const storage = this.storage;
    const bound = function (this: unknown, ...args: unknown[]): unknown {
      return storage.run(context, (): unknown => Reflect.apply(target, this, args));
    };
    // the wrapper carries the target's own properties too, so it stands for it
    return Object.assign(bound, target);
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}
