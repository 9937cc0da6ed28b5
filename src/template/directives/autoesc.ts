/** #autoesc and #noautoesc (FreeMarker's AutoEscBlock / NoAutoEscBlock): auto-escaping on or off inside. */
import type * as A from '../ast.js';
import { isMarkupFormat, outputFormatDescription } from '../output-formats.js';
import { type Directive, type DirectiveParser, elementBase } from './types.js';

function parse(p: DirectiveParser): A.El {
  const start = p.lx.next();
  const name = start.name!;
  const savedFormat = p.outputFormat;
  const savedAuto = p.autoEscaping;
  if (name === 'autoesc') {
    if (!isMarkupFormat(p.outputFormat)) {
      throw p.err(
        `The current output format can't do escaping: ${outputFormatDescription(p.outputFormat)}`,
        start,
      );
    }
    p.autoEscaping = true;
  } else if (name === 'noautoesc') {
    p.autoEscaping = false;
  }
  const children = p.mixedContent();
  const end = p.expectEnd([name], '#' + name);
  p.outputFormat = savedFormat;
  p.autoEscaping = savedAuto;
  const pos = p.span(p.tokPos(start), p.tokPos(end));
  return p.el<A.AutoEscEl>({ kind: 'autoEsc', on: name === 'autoesc', ...elementBase(p) }, pos, children);
}

export const autoesc: Directive<'autoEsc'> = {
  startTags: { autoesc: 'close1', noautoesc: 'close1' },
  endTags: ['autoesc', 'noautoesc'],
  kinds: ['autoEsc'],
  parse,
  compile: (el, c) => c.block(el.children),
  stackLabel: (el) => (el.on ? '#autoesc' : '#noautoesc'),
};
