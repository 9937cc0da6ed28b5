/** FreeMarker's canonical form of expressions (what error messages show after `==>`). */
import type { Expr, InterpEl } from './ast.js';
import { BigDec } from './bigdecimal.js';

export function canonical(e: Expr): string {
  switch (e.kind) {
    case 'num':
      return e.value instanceof BigDec ? e.value.toString() : String(e.value);
    case 'str':
      if (e.parts) {
        return (
          '"' +
          e.parts.map((p) => (typeof p === 'string' ? ftlStringLiteralEnc(p) : interpCanonical(p))).join('') +
          '"'
        );
      }
      return '"' + ftlStringLiteralEnc(e.value) + '"';
    case 'bool':
      return String(e.value);
    case 'list':
      return '[' + e.items.map(canonical).join(', ') + ']';
    case 'hash':
      return '{' + e.keys.map((k, i) => canonical(k) + ': ' + canonical(e.values[i])).join(', ') + '}';
    case 'id':
      return identifierRef(e.name);
    case 'special':
      return '.' + e.name;
    case 'dot':
      return canonical(e.target) + '.' + identifierRef(e.name);
    case 'key':
      return canonical(e.target) + '[' + canonical(e.key) + ']';
    case 'call':
      return canonical(e.target) + '(' + e.args.map(canonical).join(', ') + ')';
    case 'bi':
      return (
        canonical(e.target) + '?' + e.name + (e.args ? '(' + e.args.map(canonical).join(', ') + ')' : '')
      );
    case 'default':
      return canonical(e.target) + '!' + (e.rhs ? canonical(e.rhs) : '');
    case 'exists':
      return canonical(e.target) + '??';
    case 'not':
      return '!' + canonical(e.target);
    case 'neg':
      return (e.minus ? '-' : '+') + canonical(e.target);
    case 'arith':
      return canonical(e.left) + ' ' + e.op + ' ' + canonical(e.right);
    case 'add':
      return canonical(e.left) + ' + ' + canonical(e.right);
    case 'cmp':
      return canonical(e.left) + ' ' + e.op + ' ' + canonical(e.right);
    case 'and':
      return canonical(e.left) + ' && ' + canonical(e.right);
    case 'or':
      return canonical(e.left) + ' || ' + canonical(e.right);
    case 'range':
      return canonical(e.left) + e.op + (e.right ? canonical(e.right) : '');
    case 'paren':
      return '(' + canonical(e.target) + ')';
    case 'lambda':
      return (e.parens ? '(' + e.params.join(', ') + ')' : e.params[0]) + ' -> ' + canonical(e.body);
  }
}

export function interpCanonical(i: InterpEl): string {
  if (i.numeric) {
    let fmt = '';
    if (i.minFrac !== undefined) fmt = `; m${i.minFrac}M${i.maxFrac}`;
    return '#{' + canonical(i.expr) + fmt + '}';
  }
  return '${' + canonical(i.expr) + '}';
}

/** StringUtil.FTLStringLiteralEnc: escapes for a double-quoted FTL string literal. */
export function ftlStringLiteralEnc(s: string): string {
  let out = '';
  for (const ch of s) {
    switch (ch) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\b':
        out += '\\b';
        break;
      case '$':
      case '#':
        out += ch;
        break;
      default: {
        const c = ch.charCodeAt(0);
        out += c < 0x20 ? '\\x' + c.toString(16).padStart(4, '0') : ch;
      }
    }
  }
  return out;
}

/** Escapes the characters an FTL identifier can only contain backslash-escaped. */
export function identifierRef(name: string): string {
  return name.replace(/[-.:#]/g, (c) => '\\' + c);
}
