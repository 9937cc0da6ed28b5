/**
 * An error a function raises for the script writer to read. The message always starts with the
 * function's name (`list_objects: …`); `detail` is the rest, in the platform's wording where the
 * spec gives one (`Cannot list objects with an empty condition.`).
 */
export class FunctionError extends Error {
  override name = 'FunctionError';
  constructor(
    readonly functionName: string,
    readonly detail: string,
    /** The argument at fault, 1-based, when there is one. */
    readonly argument?: { index: number; name: string },
  ) {
    super(`${functionName}: ${argument ? `argument ${argument.index} (${argument.name}) ` : ''}${detail}`);
  }
}

/** `fn: argument 2 (name) <detail>` */
export function argumentError(
  functionName: string,
  index: number,
  name: string,
  detail: string,
): FunctionError {
  return new FunctionError(functionName, detail, { index, name });
}
