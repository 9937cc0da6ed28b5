/**
 * What every Atom route shares: the path and query schemas, the caller's site (404 unless the path
 * names the caller's account), the request body as an Atom document, and the answer in Atom XML
 * or its JSON form.
 */
import { propertyOf } from '../../../safety/narrow.js';
import { Type, type TSchema } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  atomFromJson,
  atomToXml,
  AtomFormatError,
  ATOM_MEDIA_TYPE,
  type AtomDocument,
  type AtomEntry,
} from '../../../atom/format.js';
import { laneModeFor, type Platform } from '../../../platform/index.js';
import { pageFeed, type Site } from '../../atom/entries.js';
import type { Project } from '../../../platform/projects/index.js';
import { invalidXml } from '../../atom/xml.js';
import { callerOf } from '../../auth/access.js';
import { badRequest, notFound } from '../../errors.js';
import type { Caller } from '../../hosts.js';
import { ListQuery } from '../../listing.js';
import { ErrorBody, Mode } from '../../schemas.js';

const MAX_REPORTS = 10_000;
const REPORT_BATCH = 1000;

const AccountParam = Type.String({ minLength: 1, maxLength: 64 });
export const Params = Type.Object({ account: AccountParam });
export const IdParams = Type.Object({ account: AccountParam, id: Type.Integer({ minimum: 1 }) });
export const RefParams = Type.Object({
  account: AccountParam,
  ref: Type.String({ minLength: 1, maxLength: 255 }),
});
export const ListParams = Type.Object({
  account: AccountParam,
  listId: Type.String({ minLength: 1, maxLength: 128 }),
});
const Alt = Type.Optional(
  Type.Union([Type.Literal('json'), Type.Literal('atom')], {
    description: 'json: answer the JSON form (as Accept: application/json)',
  }),
);
export const EntryQuery = Type.Object({ alt: Alt });
export const FeedQuery = Type.Object({ ...ListQuery.properties, alt: Alt });
export const LaneFeedQuery = Type.Object({
  ...ListQuery.properties,
  alt: Alt,
  P_mode: Type.Optional(Mode),
});

const errors = { '4xx': ErrorBody, '5xx': ErrorBody };
const MEDIA = [ATOM_MEDIA_TYPE, 'application/json'];
export const entrySchema = <P extends TSchema>(summary: string, params: P) => ({
  tags: ['atom'],
  summary,
  params,
  querystring: EntryQuery,
  produces: MEDIA,
  response: errors,
});
export const feedSchema = <P extends TSchema, Q extends TSchema>(
  summary: string,
  params: P,
  querystring: Q,
) => ({
  tags: ['atom'],
  summary,
  params,
  querystring,
  produces: MEDIA,
  response: errors,
});
export const writeSchema = <P extends TSchema>(summary: string, params: P) => ({
  tags: ['atom'],
  summary,
  params,
  querystring: EntryQuery,
  consumes: [ATOM_MEDIA_TYPE, 'application/xml', 'text/xml', 'application/json'],
  produces: MEDIA,
  response: errors,
});
export const admin = { access: 'admin' as const };

/** The lanes' fields a feed filters and orders on. */
export const LANE_FIELDS = ['id', 'poolId', 'name', 'parentId', 'managerId', 'createdAt'];

/** A project of the site's account (404 unless it exists). */
export async function projectOf(platform: Platform, site: Site, id: number): Promise<Project> {
  return platform.projects.require(site.account, id);
}

/** The caller and where links point; 404 unless the path names the caller's account. */
export function siteOf(request: FastifyRequest): { caller: Caller; site: Site } {
  const caller = callerOf(request);
  const account = propertyOf(request.params, 'account');
  if (account !== caller.accountId) throw notFound('Account not found.');
  return { caller, site: { origin: `${request.protocol}://${request.host}`, account } };
}

/** The Atom XML, or the JSON form when the request asks for it. */
export function send(request: FastifyRequest, reply: FastifyReply, document: AtomDocument, status = 200) {
  reply.code(status);
  if (wantsJson(request)) return reply.type('application/json; charset=utf-8').send(document);
  return reply.type(`${ATOM_MEDIA_TYPE}; charset=utf-8`).send(atomToXml(document));
}

/** A page of entries as a feed titled `title` (its links from the request's URL), answered as send does. */
export function sendFeed(
  request: FastifyRequest,
  reply: FastifyReply,
  site: Site,
  title: string,
  page: { total: number; first: number; nb: number },
  entries: AtomEntry[],
  now: number,
) {
  return send(request, reply, { feed: pageFeed(site, { url: request.url, title }, page, entries, now) });
}

export function bodyEntry(request: FastifyRequest): AtomEntry {
  const document = bodyDocument(request);
  if (!('entry' in document)) throw invalidXml('Invalid Atom document: expected an <entry>, not a <feed>.');
  return document.entry;
}

export function bodyDocument(request: FastifyRequest): AtomDocument {
  if (request.body === undefined || request.body === null)
    throw badRequest('A body is expected: an Atom entry (application/atom+xml) or its JSON form.');
  try {
    return atomFromJson(request.body);
  } catch (e) {
    if (e instanceof AtomFormatError) throw invalidXml(`Invalid Atom document: ${e.message}`);
    throw e;
  }
}

/** The ids of the lanes the caller is in, in the lane configuration of `mode` (default LIVE). */
export async function memberLanes(
  platform: Platform,
  caller: Caller,
  mode: 'LIVE' | 'ACCEPTANCE' | 'TEST' | undefined,
): Promise<Set<number>> {
  const list = await platform.directory.lanes.lanesOf(
    caller.accountId,
    caller.user.id,
    laneModeFor(mode ?? 'LIVE'),
  );
  return new Set(list.map((l) => l.id));
}

/** Whether the request asks for the JSON form (`?alt=json`, or JSON preferred to XML in Accept). */
function wantsJson(request: FastifyRequest): boolean {
  const alt = propertyOf(request.query, 'alt');
  if (alt !== undefined) return alt === 'json';
  const accept = request.headers.accept ?? '';
  return /\bjson\b/i.test(accept) && !/\bxml\b/i.test(accept);
}

/** Reads every report, a batch at a time, up to MAX_REPORTS. */
export async function readBatches<T>(read: (first: number, limit: number) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let first = 0; first < MAX_REPORTS; first += REPORT_BATCH) {
    const batch = await read(first, REPORT_BATCH);
    all.push(...batch);
    if (batch.length < REPORT_BATCH) break;
  }
  return all;
}
