/** #outputformat (FreeMarker's OutputFormatBlock): the output format, and so auto-escaping, inside. */
import type * as A from '../ast.js';
import { canonical } from '../canonical.js';
import { constantValue } from '../constant-value.js';
import {
  isMarkupFormat,
  outputFormatByName,
  outputFormatDescription,
  unregisteredOutputFormatMessage,
} from '../output-formats.js';
import { type Directive, type DirectiveParser, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const param = p.expression();
  p.directiveEnd();
  const value = constantValue(param);
  if (param.kind !== 'str' || param.parts) {
    throw p.err(`Parameter expression must be parse-time evaluable (constant): ${canonical(param)}`, param);
  }
  if (typeof value !== 'string') throw p.err('Parameter must be a string', param);
  const savedFormat = p.outputFormat;
  const savedAuto = p.autoEscaping;
  let name: string;
  if (value.startsWith('{')) {
    if (!value.endsWith('}')) {
      throw p.err(`Output format name that starts with '{' must end with '}': ${value}`, start);
    }
    const innerName = value.slice(1, -1);
    const inner = outputFormatByName(innerName);
    if (!inner) throw p.err(unregisteredOutputFormatMessage(innerName), start);
    if (!isMarkupFormat(inner.name)) {
      throw p.err(
        `The output format inside the {...} must be a markup format, but was: ${outputFormatDescription(inner.name)}`,
        start,
      );
    }
    if (!isMarkupFormat(p.outputFormat)) {
      throw p.err(
        `The current output format must be a markup format when using {...}, but was: ${outputFormatDescription(p.outputFormat)}`,
        start,
      );
    }
    name = inner.name;
  } else {
    const f = outputFormatByName(value);
    if (!f) throw p.err(unregisteredOutputFormatMessage(value), start);
    name = f.name;
  }
  p.outputFormat = name;
  p.autoEscaping = p.autoEscapingPolicy && isMarkupFormat(name);
  const children = p.mixedContent();
  const end = p.expectEnd(['outputformat'], '#outputformat');
  p.outputFormat = savedFormat;
  p.autoEscaping = savedAuto;
  return p.el<A.OutputFormatEl>(
    { kind: 'outputFormat', format: name, ...elementBase(p) },
    p.span(p.tokPos(start), p.tokPos(end)),
    children,
  );
}

export const outputformat: Directive<'outputFormat'> = {
  startTags: { outputformat: 'blank' },
  endTags: ['outputformat'],
  kinds: ['outputFormat'],
  parse,
  compile: (el, c) => c.block(el.children),
  stackLabel: (el) => `#outputformat ${JSON.stringify(el.format)}`,
};
