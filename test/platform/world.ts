/**
 * A small account to run the User and Request functions against: users of every kind, a pool with
 * lanes (LIVE and ACCEPTANCE members), an organisation chart, a project with versions, web
 * interfaces, a custom list, i18n entries, a request.
 */
import { createPlatform, type Platform, type PlatformOptions } from '../../src/platform/index.js';
import type { Store } from '../../src/store/index.js';
import { contextFor, type ContextOptions } from '../../src/functions/request/index.js';
import { defaultRegistry, type BoundFunction, type CallEnv } from '../../src/functions/registry.js';
import type { ExecutionContext } from '../../src/functions/context.js';

export const NOW = 1_700_000_000_000;

export interface World {
  platform: Platform;
  account: string;
  ids: {
    admin: number;
    ann: number;
    bob: number;
    carl: number;
    dora: number;
    pool: number;
    clerks: number;
    managers: number;
    otherPool: number;
    otherLane: number;
    /** A runtime lane of the Other pool (P_add_user_to_lane's kind), empty. */
    runtimeLane: number;
    project: number;
    child: number;
    liveVersion: number;
    acceptanceVersion: number;
    orders: number;
    reports: number;
    mobileOnly: number;
    restricted: number;
    acceptanceOnlyProject: number;
    preview: number;
  };
  request: string;
  list: string;
}

let counter = 0;

/** Builds a fresh world in its own account (several suites can share one store). */
export async function buildWorld(store: Store, options: PlatformOptions = {}): Promise<World> {
  const platform = createPlatform(store, { clock: () => NOW, ...options });
  const account = `acme${++counter}-${Math.floor(Math.random() * 1e6)}`;
  await platform.accounts.create({ id: account, name: 'Acme', baseUrl: 'https://flow.example.com' });
  const { users, lanes } = platform.directory;
  const admin = await users.create(account, {
    login: 'admin',
    name: 'Ada Admin',
    profile: 'ADMIN',
    isAdmin: true,
  });
  const ann = await users.create(account, {
    login: 'ann',
    email: 'ann@acme.example',
    name: 'Ann Smith',
    profile: 'USER',
    language: 'fr',
    preferences: { theme: 'dark' },
    metadata: { dept: 'sales', phones: ['1', '2'] },
  });
  const bob = await users.create(account, { login: 'bob', name: 'Bob Blocked', status: 'blocked' });
  const carl = await users.create(account, { login: 'carl', name: 'Carl Clerk', email: 'carl@acme.example' });
  const dora = await users.create(account, { login: 'dora', name: 'Dora Director' });
  await users.delegate(account, carl.id, ann.id);

  const pool = await lanes.createPool(account, { name: 'Orders' });
  const clerks = await lanes.createLane(account, pool.id, { name: 'Clerks' });
  const managers = await lanes.createLane(account, pool.id, { name: 'Managers' });
  await lanes.addMember(account, clerks.id, 'LIVE', ann.id);
  await lanes.addMember(account, clerks.id, 'LIVE', carl.id);
  await lanes.addMember(account, clerks.id, 'ACCEPTANCE', dora.id);
  await lanes.addMember(account, managers.id, 'LIVE', dora.id);
  const otherPool = await lanes.createPool(account, { name: 'Other' });
  const otherLane = await lanes.createLane(account, otherPool.id, { name: 'Elsewhere' });
  const runtimeLane = await lanes.createLane(account, otherPool.id, { name: 'On call', runtime: true });

  const org = await lanes.createPool(account, { name: 'Organisation', isOrganization: true });
  const top = await lanes.createLane(account, org.id, { name: 'Board', managerId: dora.id });
  const sales = await lanes.createLane(account, org.id, {
    name: 'Sales',
    parentId: top.id,
    managerId: ann.id,
  });
  await lanes.addMember(account, sales.id, 'LIVE', carl.id);

  const { projects, webInterfaces, customLists } = platform;
  const project = await projects.create(account, {
    title: 'Orders',
    authorId: admin.id,
    metadata: { owner: 'sales', sla: 3 },
  });
  const child = await projects.create(account, { title: 'Orders child', parentId: project.id });
  await projects.attachPool(account, project.id, pool.id);
  const liveVersion = await projects.addVersion(account, project.id, { name: '1.0', mode: 'LIVE' });
  const acceptanceVersion = await projects.addVersion(account, project.id, {
    name: '1.1',
    mode: 'ACCEPTANCE',
  });
  await projects.addVersion(account, project.id, { name: 'draft', mode: 'TEST' });
  const orders = await webInterfaces.create(account, project.id, {
    title: 'Orders',
    description: 'Enter an order',
    thumb: 'https://flow.example.com/thumbs/orders.png',
    tags: ['sales', 'daily'],
    contexts: ['web', 'mobile'],
  });
  const reports = await webInterfaces.create(account, project.id, { title: 'Reports', tags: ['sales'] });
  const mobileOnly = await webInterfaces.create(account, project.id, {
    title: 'Mobile',
    contexts: ['mobile'],
  });
  const restricted = await webInterfaces.create(account, project.id, {
    title: 'Approvals',
    lanes: [managers.id],
  });
  const acceptanceOnly = await projects.create(account, { title: 'New' });
  await projects.addVersion(account, acceptanceOnly.id, { name: '0.1', mode: 'ACCEPTANCE' });
  const preview = await webInterfaces.create(account, acceptanceOnly.id, { title: 'Preview' });

  const list = await customLists.create(account, {
    id: 'countries',
    name: 'Countries',
    projectId: project.id,
    content: [
      { label: 'France', value: 'FR' },
      { label: 'Japan', value: 'JP' },
    ],
  });
  await platform.i18n.set(account, null, 'en', { greeting: 'Hello', bye: 'Goodbye' });
  await platform.i18n.set(account, null, 'fr', { greeting: 'Bonjour' });
  await platform.i18n.set(account, project.id, 'en', { greeting: 'Hello from Orders' });

  const request = await platform.requests.create(account, {
    projectId: project.id,
    versionId: liveVersion.id,
    mode: 'LIVE',
    initiatorId: carl.id,
    data: { order: 42 },
  });

  return {
    platform,
    account,
    ids: {
      admin: admin.id,
      ann: ann.id,
      bob: bob.id,
      carl: carl.id,
      dora: dora.id,
      pool: pool.id,
      clerks: clerks.id,
      managers: managers.id,
      otherPool: otherPool.id,
      otherLane: otherLane.id,
      runtimeLane: runtimeLane.id,
      project: project.id,
      child: child.id,
      liveVersion: liveVersion.id,
      acceptanceVersion: acceptanceVersion.id,
      orders: orders.id,
      reports: reports.id,
      mobileOnly: mobileOnly.id,
      restricted: restricted.id,
      acceptanceOnlyProject: acceptanceOnly.id,
      preview: preview.id,
    },
    request: request.id,
    list: list.id,
  };
}

/** A context in the world's account (user login, mode …), with the world's fixed clock. */
export function contextIn(world: World, options: Omit<ContextOptions, 'account' | 'platform'> = {}) {
  return contextFor({ platform: world.platform, account: world.account, clock: () => NOW, ...options });
}

const env: CallEnv = { getVariable: () => undefined, templateName: 'test', locale: 'en_US', timeZone: 'UTC' };

/** Calls a library function as a template would (bound to the context); resolves to its result. */
export async function call(ctx: ExecutionContext, name: string, ...args: unknown[]): Promise<unknown> {
  const fn = defaultRegistry().bind(ctx).get(name) as BoundFunction | undefined;
  if (!fn) throw new Error(`no function ${name}`);
  return fn.call(env, ...args);
}

/** The message of the error a call raises (fails when it does not). */
export async function errorOf(ctx: ExecutionContext, name: string, ...args: unknown[]): Promise<string> {
  try {
    await call(ctx, name, ...args);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${name}(${JSON.stringify(args)}) did not throw`);
}
