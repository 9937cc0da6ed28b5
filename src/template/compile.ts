/** Source → TemplateUnit: parse, strip white-space, compile to closures. Units are cached by source and options. */
import type * as A from './ast.js';
import { compileEl, interpConverter } from './compile-el.js';
import type { ElementContext } from './exec.js';
import { parseExpression, parseTemplate, type ParseOptions } from './parser.js';
import { ParseError } from './errors.js';
import type { MacroDef, TemplateUnit } from './runtime.js';
import { postParseCleanup } from './whitespace.js';
import { formatForTemplateName, outputFormatByName } from './output-formats.js';

export interface UnitOptions {
  name: string;
  strict: boolean;
  /** FreeMarker's incompatible_improvements, e.g. "2.3.20" (default 2.3.31). */
  incompatibleImprovements?: string;
  tagSyntax?: ParseOptions['tagSyntax'];
  interpolationSyntax?: ParseOptions['interpolationSyntax'];
  strictSyntax?: boolean;
  stripWhitespace?: boolean;
  outputFormat?: string;
  autoEscaping?: boolean;
  recognizeStandardFileExtensions?: boolean;
}

class Unit implements TemplateUnit {
  run!: TemplateUnit['run'];
  macros: MacroDef[] = [];
  constructor(
    readonly name: string,
    readonly outputFormat: string,
    readonly autoEscape: boolean,
    readonly source: string,
    readonly attributes: Record<string, unknown>,
    readonly root: A.El,
  ) {}
}

let cache = new Map<string, Unit>();
const MAX_CACHE = 1000;

function cacheKey(source: string, o: UnitOptions): string {
  return `${o.name}\u0000${o.incompatibleImprovements ?? ''}\u0000${o.strict ? 1 : 0}${o.tagSyntax ?? ''}\u0000${o.interpolationSyntax ?? ''}\u0000${o.strictSyntax ?? ''}${o.stripWhitespace ?? ''}\u0000${o.outputFormat ?? ''}\u0000${o.autoEscaping ?? ''}${o.recognizeStandardFileExtensions ?? ''}\u0000${source}`;
}

export function compileUnit(source: string, o: UnitOptions): TemplateUnit {
  const key = cacheKey(source, o);
  const hit = cache.get(key);
  if (hit) {
    // keep recently used entries at the end (LRU)
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  let unit: Unit;
  try {
    unit = compileFresh(source, o);
  } catch (e) {
    // Parse-time nesting is bounded by the parser; long flat chains (a.b.b.b…, 1+1+1…) are
    // parsed iteratively but compile recursively, so a pathological one ends here.
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw new ParseError(
        'Template nesting is too deep (an expression is too long to compile).',
        o.name,
        1,
        1,
      );
    }
    throw e;
  }
  if (cache.size >= MAX_CACHE) cache.delete(cache.keys().next().value as string);
  cache.set(key, unit);
  return unit;
}

function compileFresh(source: string, o: UnitOptions): Unit {
  const byName = o.recognizeStandardFileExtensions === false ? undefined : formatForTemplateName(o.name);
  const outputFormat =
    byName ?? (o.outputFormat ? (outputFormatByName(o.outputFormat)?.name ?? o.outputFormat) : 'undefined');
  const parsed = parseTemplate(source, {
    name: o.name,
    tagSyntax: o.tagSyntax,
    interpolationSyntax: o.interpolationSyntax,
    strictSyntax: o.strictSyntax,
    stripWhitespace: o.stripWhitespace,
    outputFormat,
    autoEscaping: o.autoEscaping,
  });
  const root = postParseCleanup(parsed.root, parsed.stripWhitespace, parsed.hasTrim);
  root.parent = null;
  const unit = new Unit(o.name, parsed.outputFormat, parsed.autoEscape, source, parsed.attributes, root);
  const cx: ElementContext = {
    name: o.name,
    strict: o.strict,
    ici: iciInt(o.incompatibleImprovements ?? '2.3.31'),
    interp: (el) => interpConverter(el, o.strict),
    parseExpression: (source, templateName) => parseExpression(source, { name: templateName }),
    macros: unit.macros,
    unit: () => unit,
  };
  unit.run = compileEl(root, cx);
  return unit;
}

export function iciInt(v: string): number {
  const [a, b, c] = v.split('.').map(Number);
  return a * 1_000_000 + (b || 0) * 1_000 + (c || 0);
}

export function clearCompileCache(): void {
  // a new Map, not clear(): measured, clearing an old-space Map kept the units stored in it
  // afterwards alive through scavenges until a full GC (its new table is in old space too)
  cache = new Map();
}
