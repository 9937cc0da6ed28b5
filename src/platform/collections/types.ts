import type { Budget } from '../../limits/index.js';

/** Who is acting: the account (tenant) and the connected user, if any. An ExecutionContext fits. */
export interface Actor {
  accountId: string;
  user: { id: number; login: string; isAdmin: boolean } | null;
}

/** A stored document: a JSON object whose `_id` is a string. */
export type Document = { _id: string } & Record<string, unknown>;

export interface CollectionInfo {
  /** The integer id the index functions take (they also accept the name). */
  id: number;
  name: string;
  isPublic: boolean;
  isReadonly: boolean;
  createdAt: number;
}

export interface IndexDescriptor {
  keys: string[];
  unique: boolean;
  name: string;
  ascending: boolean;
}

export type SortSpec = Array<[path: string, direction: 1 | -1]>;

/** The evaluation's budget (src/limits): what a query builds and reads is charged to it. */
export interface BudgetOption {
  budget?: Budget;
}

export interface FindOptions extends BudgetOption {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
}

export interface CollectionLimits {
  /** Largest stored document, as JSON bytes (default 16 MiB). */
  maxDocumentBytes: number;
  /** Most documents held in memory to sort or aggregate what SQL could not (default 200 000). */
  maxInMemoryDocuments: number;
  /** Most field paths whose types a collection tracks for query pushdown (default 2 000). */
  maxShapePaths: number;
  /** Most indexes per collection besides `_id_` (default 32). */
  maxIndexes: number;
}

export const DEFAULT_COLLECTION_LIMITS: CollectionLimits = {
  maxDocumentBytes: 16 * 1024 * 1024,
  maxInMemoryDocuments: 200_000,
  maxShapePaths: 2000,
  maxIndexes: 32,
};
