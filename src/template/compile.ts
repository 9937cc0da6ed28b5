/** Source → TemplateUnit: parse, strip white-space, compile to closures. Units are cached by source and options. */
import type * as A from './ast.js';
import { compileEl, interpConverter } from './compile-el.js';
import type { ElementContext } from './exec.js';
import { parseExpression, parseTemplate, type ParseOptions } from './parser.js';
import { ParseError } from './errors.js';
import { ICI, type MacroDef, type TemplateUnit } from './runtime.js';
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

/**
 * Units by source, then by options: the source string is the key itself (its hash is computed
 * once per string), not a concatenation with the options that would be copied and hashed on
 * every lookup. Least recently used sources go first once the cache holds `units` units or
 * `sourceChars` characters of source (counted once per unit): a compiled unit keeps about 45
 * bytes of heap per source character (its tree and closures), so a bound by count alone let
 * ~190 distinct 100 KB templates fill a 1 GiB heap. A unit larger than the whole character bound
 * is not kept.
 */
let cache = new Map<string, Map<string, Unit>>();
let cached = 0;
let cachedChars = 0;
const DEFAULT_LIMITS = { units: 1000, sourceChars: 4 * 1024 * 1024 };
let limits = { ...DEFAULT_LIMITS };

/** The compile cache's bounds (a test's, or a deployment's); undefined fields keep the defaults. */
export function setCompileCacheLimits(next: Partial<typeof DEFAULT_LIMITS> = {}): void {
  limits = { ...DEFAULT_LIMITS, ...next };
  while (cached > limits.units || cachedChars > limits.sourceChars) evictOldest();
}

/** What the compile cache holds: units and characters of their sources. */
export function compileCacheSize(): { units: number; sourceChars: number } {
  return { units: cached, sourceChars: cachedChars };
}

function evictOldest(): void {
  const [oldest, units] = cache.entries().next().value as [string, Map<string, Unit>];
  units.delete(units.keys().next().value as string);
  if (units.size === 0) cache.delete(oldest);
  cached--;
  cachedChars -= oldest.length;
}

function optionsKey(o: UnitOptions): string {
  return `${o.name}\u0000${o.incompatibleImprovements ?? ''}\u0000${o.strict ? 1 : 0}${o.tagSyntax ?? ''}\u0000${o.interpolationSyntax ?? ''}\u0000${o.strictSyntax ?? ''}${o.stripWhitespace ?? ''}\u0000${o.outputFormat ?? ''}\u0000${o.autoEscaping ?? ''}${o.recognizeStandardFileExtensions ?? ''}`;
}

export function compileUnit(source: string, o: UnitOptions): TemplateUnit {
  const key = optionsKey(o);
  const bySource = cache.get(source);
  const hit = bySource?.get(key);
  if (hit) {
    // keep recently used sources at the end (LRU)
    cache.delete(source);
    cache.set(source, bySource!);
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
  if (source.length > limits.sourceChars) return unit;
  while (cached > 0 && (cached >= limits.units || cachedChars + source.length > limits.sourceChars))
    evictOldest();
  const units = cache.get(source) ?? new Map<string, Unit>();
  units.set(key, unit);
  cache.delete(source);
  cache.set(source, units);
  cached++;
  cachedChars += source.length;
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
  if (v === '2.3.31') return ICI.V2_3_31;
  const [a, b, c] = v.split('.').map(Number);
  return a * 1_000_000 + (b || 0) * 1_000 + (c || 0);
}

export function clearCompileCache(): void {
  // a new Map, not clear(): measured, clearing an old-space Map kept the units stored in it
  // afterwards alive through scavenges until a full GC (its new table is in old space too)
  cache = new Map();
  cached = 0;
  cachedChars = 0;
}
