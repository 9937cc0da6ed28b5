/**
 * Errors of the collection service. The message is the reason alone, for the function layer to
 * prefix with the function's name (`list_objects: …`).
 */
export type CollectionErrorCode =
  | 'access-denied' // not public and nobody of the account is connected
  | 'read-only' // a read-only collection modified by a non-administrator
  | 'not-allowed' // a refused operator or key ($where, __proto__ …)
  | 'invalid' // a malformed query, update, document, name or option
  | 'duplicate-key' // a unique index refused a document
  | 'exists' // a collection or index name already taken
  | 'not-found' // an unknown collection (index functions) or index
  | 'too-large' // a document or an in-memory working set over its limit
  | 'import'; // a bad row or file in import

export class CollectionError extends Error {
  override name = 'CollectionError';
  constructor(
    readonly code: CollectionErrorCode,
    message: string,
  ) {
    super(message);
  }
}
