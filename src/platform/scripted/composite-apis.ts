/**
 * Composite APIs: HTTP routes of an account answered by a script (docs/hosts.md). A route is a
 * method (GET, POST, PUT, PATCH, DELETE, or ANY) and a path pattern under
 * `/live/<account>/composite/` whose segments are literal or `:name` parameters
 * (`orders/:id/lines`). One route per method and pattern. The script runs in the route's mode as
 * the caller; a route that is not public needs a caller of the account. A route may name a stored
 * process (`process`) that runs to its end in the call before the template, its response template,
 * which reads the process's final data document as P_computed.
 */
import { sql, type Sql, type Store } from '../../store/index.js';
import { MESSAGES, notFound, PlatformError } from '../errors.js';
import { isForbiddenKey, isMode, storedMode, type Mode } from '../model.js';
import { definitionMissing, synchronousRefusal, type ProcessDefinitions } from '../processes/index.js';
import { isOneOf, oneOf } from '../../safety/narrow.js';
import { SYSTEM_AUTHOR, type ArtefactVersions, type Author } from '../versions.js';
import { changeCounts, type ChangeCount } from '../change-counts.js';

export const COMPOSITE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'ANY'] as const;
export type CompositeMethod = (typeof COMPOSITE_METHODS)[number];

export interface CompositeApi {
  id: number;
  accountId: string;
  projectId: number | null;
  method: CompositeMethod;
  /** The normalised pattern: no leading or trailing slash (`orders/:id`). */
  path: string;
  template: string;
  /** The name of the stored process the call runs before the template (its response template), or null. */
  process: string | null;
  mode: Mode;
  isPublic: boolean;
  description: string;
  createdAt: number;
  updatedAt: number;
}

export interface NewCompositeApi {
  method?: string;
  path: string;
  template: string;
  process?: string | null;
  projectId?: number | null;
  mode?: Mode;
  isPublic?: boolean;
  description?: string;
}

type CompositeRow = {
  id: number;
  account_id: string;
  project_id: number | null;
  method: string;
  path: string;
  template: string;
  process: string | null;
  mode: string;
  is_public: number | boolean;
  description: string;
  created_at: number;
  updated_at: number;
};

export const TEMPLATE_MAX_CHARS = 512 * 1024;
const LITERAL = /^[A-Za-z0-9._~-]+$/;
const PARAMETER = /^:[A-Za-z_][A-Za-z0-9_]*$/;

/** Checks a path pattern and returns it without its outer slashes. */
export function normalisePattern(path: string): string {
  const trimmed = String(path).replace(/^\/+|\/+$/g, '');
  const segments = trimmed.split('/');
  if (trimmed === '' || trimmed.length > 255 || segments.length > 20)
    throw new PlatformError(
      'invalid',
      `invalid path ${JSON.stringify(path)}: 1 to 20 segments, at most 255 characters`,
    );
  const names = new Set<string>();
  for (const s of segments) {
    if (PARAMETER.test(s)) {
      if (isForbiddenKey(s.slice(1)))
        throw new PlatformError(
          'invalid',
          `invalid path ${JSON.stringify(path)}: ${s} is not a parameter name`,
        );
      if (names.has(s))
        throw new PlatformError('invalid', `invalid path ${JSON.stringify(path)}: ${s} appears twice`);
      names.add(s);
    } else if (!LITERAL.test(s))
      throw new PlatformError(
        'invalid',
        `invalid path ${JSON.stringify(path)}: a segment is letters, digits, . _ ~ - or a :parameter`,
      );
  }
  return segments.join('/');
}

export class CompositeApis {
  /** `changeCount`: the count of changes, shared by the threads of a process (PlatformOptions.changeCounts). */
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    private readonly definitions: ProcessDefinitions,
    private readonly versions: ArtefactVersions,
    private readonly changeCount: ChangeCount = changeCounts().routes,
  ) {}

  /**
   * Changes made through this platform, or any sharing its count (hosts drop their cached routes
   * when it moves): the evaluation threads of `flowmark serve` see a save of the HTTP thread at once.
   */
  get changes(): number {
    return this.changeCount.value;
  }

  async create(
    accountId: string,
    input: NewCompositeApi,
    author: Author = SYSTEM_AUTHOR,
  ): Promise<CompositeApi> {
    const fields = await this.checked(accountId, input);
    const now = this.clock();
    try {
      const row = await this.saved(
        accountId,
        author,
        sql`
        INSERT INTO composite_apis (account_id, project_id, method, path, template, process, mode, is_public,
                                    description, created_at, updated_at)
        VALUES (${accountId}, ${fields.projectId}, ${fields.method}, ${fields.path}, ${fields.template},
                ${fields.process}, ${fields.mode}, ${fields.isPublic}, ${fields.description}, ${now}, ${now})
        RETURNING *`,
      );
      this.changeCount.bump();
      return row!;
    } catch (e) {
      throw this.conflict(e, fields);
    }
  }

  /** Replaces a route's definition (every field as for create). */
  async replace(
    accountId: string,
    id: number,
    input: NewCompositeApi,
    author: Author = SYSTEM_AUTHOR,
  ): Promise<CompositeApi> {
    const fields = await this.checked(accountId, input);
    try {
      const row = await this.saved(
        accountId,
        author,
        sql`
        UPDATE composite_apis SET project_id = ${fields.projectId}, method = ${fields.method}, path = ${fields.path},
               template = ${fields.template}, process = ${fields.process}, mode = ${fields.mode}, is_public = ${fields.isPublic},
               description = ${fields.description}, updated_at = ${this.clock()}
        WHERE account_id = ${accountId} AND id = ${id} RETURNING *`,
      );
      if (!row) throw notFound('Composite API not found.');
      this.changeCount.bump();
      return row;
    } catch (e) {
      throw this.conflict(e, fields);
    }
  }

  /** Writes a route (the statement returns its row) and keeps its new version, in one transaction. */
  private saved(accountId: string, author: Author, write: Sql): Promise<CompositeApi | undefined> {
    return this.store.transaction(async () => {
      const row = await this.store.get<CompositeRow>(write);
      if (!row) return undefined;
      const api = toApi(row);
      await this.versions.record(accountId, 'composite-api', api.id, compositeBody(api), author);
      return api;
    });
  }

  async delete(accountId: string, id: number): Promise<boolean> {
    const { changes } = await this.store.run(
      sql`DELETE FROM composite_apis WHERE account_id = ${accountId} AND id = ${id}`,
    );
    this.changeCount.bump();
    return changes > 0;
  }

  async find(accountId: string, id: number): Promise<CompositeApi | undefined> {
    const row = await this.store.get<CompositeRow>(
      sql`SELECT * FROM composite_apis WHERE account_id = ${accountId} AND id = ${id}`,
    );
    return row && toApi(row);
  }

  /** The account's routes, by path then method. */
  async list(accountId: string): Promise<CompositeApi[]> {
    const rows = await this.store.all<CompositeRow>(
      sql`SELECT * FROM composite_apis WHERE account_id = ${accountId} ORDER BY path, method`,
    );
    return rows.map(toApi);
  }

  /** The latest change of the account's routes (a cache's cheap freshness check): count and last update. */
  async stamp(accountId: string): Promise<string> {
    const row = await this.store.get<{ n: number; last: number | null }>(
      sql`SELECT COUNT(*) AS n, MAX(updated_at) AS last FROM composite_apis WHERE account_id = ${accountId}`,
    );
    return `${Number(row?.n ?? 0)}:${Number(row?.last ?? 0)}`;
  }

  private async checked(accountId: string, input: NewCompositeApi) {
    const method = String(input.method ?? 'GET').toUpperCase();
    if (!isOneOf(COMPOSITE_METHODS, method))
      throw new PlatformError(
        'invalid',
        `invalid method ${JSON.stringify(input.method)}: ${COMPOSITE_METHODS.join(', ')}`,
      );
    if (typeof input.template !== 'string' || input.template.length > TEMPLATE_MAX_CHARS)
      throw new PlatformError(
        'invalid',
        `the template must be a text of at most ${TEMPLATE_MAX_CHARS} characters`,
      );
    const mode = input.mode ?? 'LIVE';
    if (!isMode(mode)) throw new PlatformError('invalid', `invalid mode ${JSON.stringify(mode)}`);
    const projectId = input.projectId ?? null;
    if (projectId !== null) {
      const project = await this.store.get(
        sql`SELECT id FROM projects WHERE account_id = ${accountId} AND id = ${projectId}`,
      );
      if (!project) throw notFound(MESSAGES.projectNotFound);
    }
    const process = await this.checkedProcess(accountId, input.process);
    const description = String(input.description ?? '');
    if (description.length > 4096)
      throw new PlatformError('invalid', 'the description is longer than 4096 characters');
    return {
      method,
      path: normalisePattern(input.path),
      template: input.template,
      process,
      mode,
      projectId,
      isPublic: Boolean(input.isPublic),
      description,
    };
  }

  /**
   * The stored process a route names: it must exist and run to its end within the call (no node
   * that waits, nothing outside the executable subset). Checked again at each call: it may change.
   */
  private async checkedProcess(accountId: string, name: unknown): Promise<string | null> {
    if (name === undefined || name === null) return null;
    if (typeof name !== 'string' || name.length === 0 || name.length > 255)
      throw new PlatformError(
        'invalid',
        'process: the name of a stored process definition, 1 to 255 characters',
      );
    const stored = await this.definitions.find(accountId, name);
    if (!stored) throw definitionMissing(name);
    const refusal = synchronousRefusal(stored.definition);
    if (refusal !== undefined)
      throw new PlatformError(
        'invalid',
        `process ${JSON.stringify(name)} cannot answer a composite API: ${refusal}`,
      );
    return name;
  }

  private conflict(e: unknown, fields: { method: string; path: string }): unknown {
    if (this.store.dialect.uniqueViolation(e))
      return new PlatformError('conflict', `a composite API answers ${fields.method} ${fields.path} already`);
    return e;
  }
}

/** What a version of a route keeps: the body of its PUT (a restore saves it again). */
export function compositeBody(api: CompositeApi): Required<NewCompositeApi> {
  return {
    method: api.method,
    path: api.path,
    template: api.template,
    process: api.process,
    projectId: api.projectId,
    mode: api.mode,
    isPublic: api.isPublic,
    description: api.description,
  };
}

function toApi(row: CompositeRow): CompositeApi {
  return {
    id: Number(row.id),
    accountId: row.account_id,
    projectId: row.project_id === null ? null : Number(row.project_id),
    method: oneOf(COMPOSITE_METHODS, row.method, 'a stored composite API method'),
    path: row.path,
    template: row.template,
    process: row.process ?? null,
    mode: storedMode(row.mode),
    isPublic: Boolean(row.is_public),
    description: row.description,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
