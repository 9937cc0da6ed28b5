/**
 * The services the function library acts on (directory, projects, requests, collections, files …),
 * reached through `ExecutionContext.platform`. Each platform module adds its member to this
 * interface as it lands (declaration merging or a direct edit), e.g.
 * `collections: CollectionService;`. Empty until the first service exists.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Platform {}
