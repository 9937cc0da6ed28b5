/**
 * JSON schemas of the API's bodies (TypeBox: the schema and its TypeScript type in one place).
 * Response schemas also decide what leaves the server: a field not listed is not sent.
 */
import { Type, type TSchema } from 'typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** Any JSON object (documents, data documents, metadata). */
export const JsonObject = Type.Record(Type.String(), Type.Unknown());
export const Mode = Type.Union([Type.Literal('LIVE'), Type.Literal('ACCEPTANCE'), Type.Literal('TEST')]);
export const LaneMode = Type.Union([Type.Literal('LIVE'), Type.Literal('ACCEPTANCE')]);
export const EpochMs = Type.Integer({ description: 'epoch milliseconds' });

export const ErrorBody = Type.Object(
  {
    status: Type.Integer(),
    code: Type.String({ description: 'stable machine-readable reason (not-found, forbidden, invalid …)' }),
    message: Type.String(),
  },
  { $id: 'ErrorBody', description: 'The body of every error response' },
);

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export const Account = Type.Object({
  id: Type.String(),
  name: Type.String(),
  locale: Type.String(),
  timeZone: Type.String(),
  baseUrl: Type.String(),
  createdAt: EpochMs,
});

export const User = Type.Object({
  id: Type.Integer(),
  login: Type.String(),
  email: Nullable(Type.String()),
  name: Type.String(),
  profile: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('blocked')]),
  isAdmin: Type.Boolean(),
  language: Type.String(),
  /** Public metadata. */
  metadata: Type.Optional(JsonObject),
  /** Only to the user themself and administrators. */
  preferences: Type.Optional(JsonObject),
  createdAt: EpochMs,
  updatedAt: EpochMs,
});

/** The fields a user is created with and changed by (all optional). */
const userFields = {
  email: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  profile: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('blocked')])),
  isAdmin: Type.Optional(Type.Boolean()),
  language: Type.Optional(Type.String({ pattern: '^[a-z]{2}$' })),
  preferences: Type.Optional(JsonObject),
  metadata: Type.Optional(JsonObject),
  password: Type.Optional(Type.String({ minLength: 8, maxLength: 1024 })),
};

export const NewUser = Type.Object(
  { login: Type.String({ minLength: 1, maxLength: 255 }), ...userFields },
  { additionalProperties: false },
);

export const UserChanges = Type.Object(
  {
    ...userFields,
    /** Required when users change their own password. */
    currentPassword: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);

export const Pool = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  isOrganization: Type.Boolean(),
  createdAt: EpochMs,
});

export const Lane = Type.Object({
  id: Type.Integer(),
  poolId: Type.Integer(),
  name: Type.String(),
  parentId: Nullable(Type.Integer()),
  managerId: Nullable(Type.Integer()),
  rule: Nullable(JsonObject),
  runtime: Type.Boolean(),
  createdAt: EpochMs,
});

export const Project = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  type: Type.String(),
  authorId: Nullable(Type.Integer()),
  summary: JsonObject,
  content: JsonObject,
  metadata: JsonObject,
  parentId: Nullable(Type.Integer()),
  logLevel: Nullable(Type.String()),
  createdAt: EpochMs,
  updatedAt: EpochMs,
});

const LogThreshold = Type.Union(
  ['SEVERE', 'WARNING', 'INFO', 'CONFIG', 'FINE', 'FINER', 'FINEST', 'OFF', 'ALL'].map((l) =>
    Type.Literal(l),
  ),
);

export const NewProject = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 255 }),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    authorId: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    summary: Type.Optional(JsonObject),
    content: Type.Optional(JsonObject),
    metadata: Type.Optional(JsonObject),
    parentId: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    logLevel: Type.Optional(Nullable(LogThreshold)),
  },
  { additionalProperties: false },
);

export const ProjectChanges = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    authorId: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    summary: Type.Optional(JsonObject),
    content: Type.Optional(JsonObject),
    metadata: Type.Optional(JsonObject),
    logLevel: Type.Optional(Nullable(LogThreshold)),
  },
  { additionalProperties: false },
);

export const ProjectVersion = Type.Object({
  id: Type.Integer(),
  projectId: Type.Integer(),
  name: Type.String(),
  mode: Mode,
  createdAt: EpochMs,
});

export const InterfaceContext = Type.Union([
  Type.Literal('web'),
  Type.Literal('mobile'),
  Type.Literal('tablet'),
]);

export const WebInterface = Type.Object({
  id: Type.Integer(),
  projectId: Type.Integer(),
  title: Type.String(),
  description: Type.String(),
  thumb: Type.String(),
  tags: Type.Array(Type.String()),
  contexts: Type.Array(InterfaceContext),
  lanes: Type.Array(Type.Integer()),
  createdAt: EpochMs,
});

export const NewWebInterface = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    thumb: Type.Optional(Type.String({ maxLength: 2048 })),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })),
    contexts: Type.Optional(Type.Array(InterfaceContext, { minItems: 1, maxItems: 3 })),
    lanes: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 1000 })),
  },
  { additionalProperties: false },
);

export const Application = Type.Object({ webInterface: WebInterface, mode: LaneMode, url: Type.String() });

export const CustomList = Type.Object({
  id: Type.String(),
  projectId: Nullable(Type.Integer()),
  name: Type.String(),
  content: Type.Array(Type.Unknown()),
  updatedAt: EpochMs,
});

export const NewCustomList = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,128}$' })),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    projectId: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    content: Type.Optional(Type.Array(Type.Unknown())),
  },
  { additionalProperties: false },
);

export const CollectionInfo = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  isPublic: Type.Boolean(),
  isReadonly: Type.Boolean(),
  createdAt: EpochMs,
  documents: Type.Optional(Type.Integer()),
});

export const IndexDescriptor = Type.Object({
  name: Type.String(),
  keys: Type.Array(Type.String()),
  unique: Type.Boolean(),
  ascending: Type.Boolean(),
});

export const ApiTokenInfo = Type.Object({
  id: Type.String(),
  userId: Type.Integer(),
  name: Type.String(),
  createdAt: EpochMs,
  expiresAt: Nullable(EpochMs),
  lastUsedAt: Nullable(EpochMs),
});

export const LogEntry = Type.Object({
  id: Type.Integer(),
  requestId: Nullable(Type.String()),
  projectId: Nullable(Type.Integer()),
  userId: Nullable(Type.Integer()),
  mode: Mode,
  level: Type.String(),
  message: Type.String(),
  createdAt: EpochMs,
});

export const ProcessRequest = Type.Object({
  id: Type.String(),
  projectId: Nullable(Type.Integer()),
  versionId: Nullable(Type.Integer()),
  mode: Mode,
  status: Type.Integer(),
  data: JsonObject,
  locks: Type.Array(Type.Object({ name: Type.String(), start: EpochMs, end: Type.Optional(EpochMs) })),
  message: Type.String(),
  initiatorId: Nullable(Type.Integer()),
  parentId: Nullable(Type.String()),
  createdAt: EpochMs,
  updatedAt: EpochMs,
});

/** A request as the request list shows it: no data document, no P_locks. */
export const RequestSummary = Type.Omit(ProcessRequest, ['data', 'locks']);

/** A page of a list: the items after filters, order and paging, and how many matched in all. */
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), total: Type.Integer(), first: Type.Integer(), nb: Type.Integer() });
