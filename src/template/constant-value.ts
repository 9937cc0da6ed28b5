/** The parse-time value of a constant expression, for the #ftl header and #outputformat. */
import type * as A from './ast.js';
import { BigDec } from './bigdecimal.js';

/** Value of a constant expression (literals only); undefined for anything else. */
export function constantValue(e: A.Expr): unknown {
  switch (e.kind) {
    case 'str':
      return e.parts ? undefined : e.value;
    case 'num':
      return e.value instanceof BigDec ? e.value.toNumber() : e.value;
    case 'bool':
      return e.value;
    case 'paren':
      return constantValue(e.target);
    case 'list':
      return e.items.map(constantValue);
    case 'hash': {
      const o: Record<string, unknown> = {};
      e.keys.forEach((k, i) => (o[String(constantValue(k))] = constantValue(e.values[i])));
      return o;
    }
    default:
      return undefined;
  }
}
