/**
 * What the host suites share: the platform world of test/platform/world.ts (users, lanes clerks
 * and managers, a project with versions, web interfaces) and a process host over it with the
 * world's fixed clock, recording the events it tells.
 */
import { ProcessHost, type Exchange, type ProcessEvent } from '../../src/hosts/index.js';
import type { TaskRef } from '../../src/platform/processes/index.js';
import type { Store } from '../../src/store/index.js';
import { buildWorld, NOW, type World } from '../platform/world.js';

export interface HostWorld extends World {
  host: ProcessHost;
  events: ProcessEvent[];
  /** Actors for task access. */
  actor(name: 'admin' | 'ann' | 'carl' | 'dora'): { id: number; isAdmin: boolean };
}

export async function hostWorld(store: Store, limits?: { dataDocumentBytes?: number }): Promise<HostWorld> {
  const world = await buildWorld(store);
  const events: ProcessEvent[] = [];
  const host = new ProcessHost(world.platform, {
    clock: () => NOW,
    random: () => 0.5,
    observer: (e) => events.push(e),
    ...(limits ? { limits } : {}),
  });
  return {
    ...world,
    host,
    events,
    actor: (name) => ({ id: world.ids[name], isAdmin: name === 'admin' }),
  };
}

export const ref = (requestId: string, stepId: number, iteration = 0): TaskRef => ({
  requestId,
  stepId,
  iteration,
});

/** The task URL the world's account gives (base URL https://flow.example.com). */
export function taskUrlOf(w: World, r: TaskRef, query = ''): string {
  return `https://flow.example.com/live/${w.account}/task/${r.requestId}/${r.stepId}/${r.iteration}${query}`;
}

/** [stepId, iteration, status] of each step record, in order. */
export function stepsOf(view: { steps: { stepId: number; iteration: number; status: string }[] }) {
  return view.steps.map((s) => [s.stepId, s.iteration, s.status]);
}

/** An HTTP exchange for a composite API of the account, anonymous unless `extra` says otherwise. */
export function anonymousExchange(
  accountId: string,
  method: string,
  path: string,
  extra: Partial<Exchange> = {},
): Exchange {
  return { accountId, caller: null, method, path, headers: {}, query: {}, body: undefined, ...extra };
}
