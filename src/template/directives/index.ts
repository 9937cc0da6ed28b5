/**
 * The table of directives that live in their own module (directives/<name>.ts). The lexer, the
 * parser, the element compiler and the FTL stack trace look them up here; adding one is its module
 * and one line below.
 */
import { assign } from './assign.js';
import { attempt } from './attempt.js';
import { autoesc } from './autoesc.js';
import { breakDirective } from './break.js';
import { call } from './call.js';
import { comment } from './comment.js';
import { compress } from './compress.js';
import { continueDirective } from './continue.js';
import { elseTag } from './else.js';
import { escape } from './escape.js';
import { flush } from './flush.js';
import { ftl } from './ftl.js';
import { ifDirective } from './if.js';
import { importDirective } from './import.js';
import { include } from './include.js';
import { list } from './list.js';
import { macro } from './macro.js';
import { nested } from './nested.js';
import { outputformat } from './outputformat.js';
import { returnDirective } from './return.js';
import { setting } from './setting.js';
import { stop } from './stop.js';
import { switchDirective } from './switch.js';
import { transform } from './transform.js';
import { trim } from './trim.js';
import { visit } from './visit.js';
import type { Directive } from './types.js';

export const DIRECTIVES: readonly Directive<any>[] = [
  assign,
  attempt,
  autoesc,
  breakDirective,
  call,
  comment,
  compress,
  continueDirective,
  elseTag,
  escape,
  flush,
  ftl,
  ifDirective,
  importDirective,
  include,
  list,
  macro,
  nested,
  outputformat,
  returnDirective,
  setting,
  stop,
  switchDirective,
  transform,
  trim,
  visit,
];

const byTag = new Map<string, Directive<any>>();
const byKind = new Map<string, Directive<any>>();
const clauseTags = new Set<string>();
for (const d of DIRECTIVES) {
  for (const tag of Object.keys(d.startTags)) byTag.set(tag, d);
  for (const kind of d.kinds) byKind.set(kind, d);
  for (const tag of d.clauseTags ?? []) clauseTags.add(tag);
}

/** The element kinds that print nothing (each directive's `nonOutputting`). */
export const NON_OUTPUTTING_KINDS: ReadonlySet<string> = new Set(
  DIRECTIVES.flatMap((d) => d.nonOutputting ?? []),
);

/** The directive module whose start tag is `<#name`, if it has one. */
export function directiveOfTag(name: string): Directive<any> | undefined {
  return byTag.get(name);
}

/** The directive module that compiles elements of `kind`, if it has one. */
export function directiveOfKind(kind: string): Directive<any> | undefined {
  return byKind.get(kind);
}

/** `<#name` continues an enclosing directive (#else, #elseif, #recover, #case, #default). */
export function isClauseTag(name: string): boolean {
  return clauseTags.has(name);
}
