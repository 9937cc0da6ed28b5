/**
 * The demo account of `flowmark seed --demo`: enough of everything for every User and Request
 * function to be tried with `flowmark render` (see docs/platform.md, "Trying it").
 */
import { randomBytes } from 'node:crypto';
import type { NewUser, Platform } from './index.js';

export interface DemoOptions {
  accountId?: string;
  /** Password of every demo user (default: a random one, reported in the summary). */
  password?: string;
}

export interface DemoSummary {
  accountId: string;
  password: string;
  users: Record<string, number>;
  pools: Record<string, number>;
  lanes: Record<string, number>;
  projectId: number;
  /** Logins granted the design right on the project (administrators design every project). */
  designers: string[];
  versions: Record<string, number>;
  webInterfaces: Record<string, number>;
  customLists: string[];
  requestId: string;
}

export async function seedDemo(platform: Platform, options: DemoOptions = {}): Promise<DemoSummary> {
  const accountId = options.accountId ?? 'demo';
  const password = options.password ?? randomBytes(9).toString('base64url');
  await platform.accounts.create({ id: accountId, name: 'Demo company' });
  const { users, lanes, jobs } = platform.directory;
  const user = (login: string, fields: Omit<NewUser, 'login'>) =>
    users.create(accountId, { login, password, ...fields });
  const admin = await user('admin', {
    name: 'Ada Admin',
    email: 'admin@demo.example',
    profile: 'ADMIN',
    isAdmin: true,
  });
  const ann = await user('ann', {
    name: 'Ann Smith',
    email: 'ann@demo.example',
    language: 'fr',
    preferences: { theme: 'dark' },
    metadata: { dept: 'sales', phone: '+33 1 23 45 67 89' },
  });
  const bob = await user('bob', { name: 'Bob Blocked', email: 'bob@demo.example', status: 'blocked' });
  const carl = await user('carl', {
    name: 'Carl Clerk',
    email: 'carl@demo.example',
    metadata: { dept: 'sales' },
  });
  const dora = await user('dora', {
    name: 'Dora Director',
    email: 'dora@demo.example',
    profile: 'SUPERVISOR',
  });
  await users.delegate(accountId, carl.id, ann.id);

  const orders = await lanes.createPool(accountId, { name: 'Orders' });
  const clerks = await lanes.createLane(accountId, orders.id, { name: 'Clerks' });
  const managers = await lanes.createLane(accountId, orders.id, { name: 'Managers' });
  const french = await lanes.createLane(accountId, orders.id, { name: 'French speakers' });
  const onCall = await lanes.createLane(accountId, orders.id, { name: 'On call', runtime: true });
  await lanes.addMember(accountId, clerks.id, 'LIVE', ann.id);
  await lanes.addMember(accountId, clerks.id, 'LIVE', carl.id);
  await lanes.addMember(accountId, clerks.id, 'ACCEPTANCE', dora.id);
  await lanes.addMember(accountId, managers.id, 'LIVE', dora.id);
  await jobs.setRule(accountId, french.id, { language: 'fr', status: 'active' });
  await jobs.run({ accountId });
  const company = await lanes.createPool(accountId, { name: 'Company', isOrganization: true });
  const board = await lanes.createLane(accountId, company.id, { name: 'Board', managerId: dora.id });
  const sales = await lanes.createLane(accountId, company.id, {
    name: 'Sales',
    parentId: board.id,
    managerId: ann.id,
  });
  await lanes.addMember(accountId, sales.id, 'LIVE', carl.id);

  const project = await platform.projects.create(accountId, {
    title: 'Order handling',
    authorId: admin.id,
    summary: { text: 'Orders from entry to approval' },
    metadata: { owner: 'sales', sla_days: 3 },
  });
  await platform.projects.attachPool(accountId, project.id, orders.id);
  // dora designs the project: she may evaluate templates in it and fill its runtime lane.
  await platform.rights.grantDesign(accountId, project.id, dora.id);
  const live = await platform.projects.addVersion(accountId, project.id, { name: '1.0', mode: 'LIVE' });
  const acceptance = await platform.projects.addVersion(accountId, project.id, {
    name: '1.1',
    mode: 'ACCEPTANCE',
  });
  const { webInterfaces } = platform;
  const entry = await webInterfaces.create(accountId, project.id, {
    title: 'Order entry',
    description: 'Enter a new order',
    tags: ['sales', 'daily'],
    contexts: ['web', 'mobile'],
  });
  const reports = await webInterfaces.create(accountId, project.id, { title: 'Reports', tags: ['sales'] });
  const approvals = await webInterfaces.create(accountId, project.id, {
    title: 'Approvals',
    lanes: [managers.id],
  });
  await platform.customLists.create(accountId, {
    id: 'countries',
    name: 'Countries',
    projectId: project.id,
    content: [
      { label: 'France', value: 'FR' },
      { label: 'Japan', value: 'JP' },
      { label: 'Peru', value: 'PE' },
    ],
  });
  await platform.vaults.save(accountId, project.id, 'LIVE', { apiKey: 'demo-live-key' });
  await platform.vaults.save(accountId, project.id, 'TEST', { apiKey: 'demo-test-key' });
  await platform.i18n.set(accountId, null, 'en', { greeting: 'Hello', 'order.title': 'Order' });
  await platform.i18n.set(accountId, null, 'fr', { greeting: 'Bonjour', 'order.title': 'Commande' });
  await platform.i18n.set(accountId, project.id, 'en', { greeting: 'Welcome to order handling' });
  const request = await platform.requests.create(accountId, {
    projectId: project.id,
    versionId: live.id,
    mode: 'LIVE',
    initiatorId: carl.id,
    data: { order: 42, customer: 'ACME' },
  });
  return {
    accountId,
    password,
    users: { admin: admin.id, ann: ann.id, bob: bob.id, carl: carl.id, dora: dora.id },
    pools: { Orders: orders.id, Company: company.id },
    lanes: {
      Clerks: clerks.id,
      Managers: managers.id,
      'French speakers': french.id,
      'On call': onCall.id,
      Board: board.id,
      Sales: sales.id,
    },
    projectId: project.id,
    designers: ['dora'],
    versions: { '1.0 (LIVE)': live.id, '1.1 (ACCEPTANCE)': acceptance.id },
    webInterfaces: { 'Order entry': entry.id, Reports: reports.id, Approvals: approvals.id },
    customLists: ['countries'],
    requestId: request.id,
  };
}
