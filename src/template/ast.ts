/**
 * The syntax tree. Elements mirror FreeMarker's TemplateElement classes one to one (the whitespace
 * stripping algorithm walks this tree exactly as FreeMarker walks its own), expressions mirror its
 * Expression classes (their canonical form appears in error messages).
 */
import type { BigDec } from './bigdecimal.js';
import type { Directive } from './directives/types.js';

export interface Pos {
  /** 1-based line and column of the first character (tabs advance to the next multiple of 8, like FreeMarker). */
  beginLine: number;
  beginColumn: number;
  /** Line and column of the last character. */
  endLine: number;
  endColumn: number;
  /** Template name, set by the compiler (errors name the template they point into). */
  templateName?: string;
}

// ------------------------------------------------------------------ expressions

export type Expr =
  | NumLit
  | StrLit
  | BoolLit
  | ListLit
  | HashLit
  | Ident
  | SpecialVar
  | Dot
  | DynKey
  | Call
  | BuiltInExpr
  | DefaultTo
  | Exists
  | Not
  | Neg
  | Arith
  | Add
  | Cmp
  | And
  | Or
  | Range
  | Paren
  | Lambda;

interface ExprBase extends Pos {
  /** Set by the parser: the expression contains a call or an ?eval-like built-in (may reach a Promise). */
  calls?: boolean;
}

export interface NumLit extends ExprBase {
  kind: 'num';
  value: number | BigDec;
  text: string;
}
export interface StrLit extends ExprBase {
  kind: 'str';
  value: string;
  /** Interpolated parts (strings and interpolations) when the literal contains ${...} or #{...}. */
  parts?: (string | InterpEl)[];
  raw: boolean;
  /** Source text of the literal, quotes included (canonical form). */
  src: string;
}
export interface BoolLit extends ExprBase {
  kind: 'bool';
  value: boolean;
}
export interface ListLit extends ExprBase {
  kind: 'list';
  items: Expr[];
}
export interface HashLit extends ExprBase {
  kind: 'hash';
  keys: Expr[];
  values: Expr[];
}
export interface Ident extends ExprBase {
  kind: 'id';
  name: string;
}
export interface SpecialVar extends ExprBase {
  kind: 'special';
  name: string;
  /** .output_format / .auto_esc are fixed at parse time. */
  parseTime?: string | boolean;
}
export interface Dot extends ExprBase {
  kind: 'dot';
  target: Expr;
  name: string;
}
export interface DynKey extends ExprBase {
  kind: 'key';
  target: Expr;
  key: Expr;
}
export interface Call extends ExprBase {
  kind: 'call';
  target: Expr;
  args: Expr[];
}
export interface BuiltInExpr extends ExprBase {
  kind: 'bi';
  target: Expr;
  name: string;
  /** Arguments when the built-in is called directly (`x?foo(a, b)`); undefined for the bare form. */
  args?: Expr[];
  /** Output format bound at parse time (?esc, ?no_esc, ?markup_string…). */
  outputFormat?: string;
  autoEscaping?: boolean;
}
export interface DefaultTo extends ExprBase {
  kind: 'default';
  target: Expr;
  rhs?: Expr;
}
export interface Exists extends ExprBase {
  kind: 'exists';
  target: Expr;
}
export interface Not extends ExprBase {
  kind: 'not';
  target: Expr;
}
export interface Neg extends ExprBase {
  kind: 'neg';
  target: Expr;
  minus: boolean;
}
export interface Arith extends ExprBase {
  kind: 'arith';
  op: '-' | '*' | '/' | '%';
  left: Expr;
  right: Expr;
}
export interface Add extends ExprBase {
  kind: 'add';
  left: Expr;
  right: Expr;
}
export interface Cmp extends ExprBase {
  kind: 'cmp';
  /** The operator as written (==, =, !=, <, lt, &lt;, <=, lte, >, gt, >=, gte …). */
  op: string;
  relation: 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';
  left: Expr;
  right: Expr;
}
export interface And extends ExprBase {
  kind: 'and';
  left: Expr;
  right: Expr;
}
export interface Or extends ExprBase {
  kind: 'or';
  left: Expr;
  right: Expr;
}
export interface Range extends ExprBase {
  kind: 'range';
  left: Expr;
  right?: Expr;
  end: 'inclusive' | 'exclusive' | 'unbound' | 'size';
  op: string;
}
export interface Paren extends ExprBase {
  kind: 'paren';
  target: Expr;
}
export interface Lambda extends ExprBase {
  kind: 'lambda';
  params: string[];
  parens: boolean;
  body: Expr;
}

// ------------------------------------------------------------------ elements

export type El =
  | TextEl
  | InterpEl
  | MixedEl
  | IfEl
  | CondEl
  | ListEl
  | ListElseEl
  | ElseOfListEl
  | ItemsEl
  | SepEl
  | SwitchEl
  | CaseEl
  | AssignEl
  | AssignInstrEl
  | BlockAssignEl
  | IncludeEl
  | ImportEl
  | MacroEl
  | CompressEl
  | CallEl
  | CommentEl
  | SettingEl
  | BreakEl
  | ContinueEl
  | ReturnEl
  | StopEl
  | FlushEl
  | TrimEl
  | NestedEl
  | EscapeEl
  | NoEscapeEl
  | VisitEl
  | AttemptEl
  | RecoverEl
  | OutputFormatEl
  | AutoEscEl
  | TransformEl;

export interface ElBase extends Pos {
  children: El[];
  parent: El | null;
  /** Index in the parent's children (kept up to date by the whitespace pass). */
  index: number;
  /** The directive module that parsed it (its compile function and stack label), for the moved directives. */
  madeBy?: Directive<any>;
}

export interface TextEl extends ElBase {
  kind: 'text';
  text: string;
  unparsed: boolean;
}
export interface InterpEl extends ElBase {
  kind: 'interp';
  expr: Expr;
  /** The expression to evaluate: `expr` wrapped by #escape, if any. */
  escaped: Expr;
  /** #{x; m1M2} */
  numeric: boolean;
  minFrac?: number;
  maxFrac?: number;
  /** Output format and auto-escaping in effect where the interpolation was written. */
  outputFormat: string;
  autoEscape: boolean;
}
export interface MixedEl extends ElBase {
  kind: 'mixed';
}
export interface IfEl extends ElBase {
  kind: 'if';
}
export interface CondEl extends ElBase {
  kind: 'cond';
  cond: Expr | null;
  type: 'if' | 'elseif' | 'else';
}
export interface ListEl extends ElBase {
  kind: 'list';
  source: Expr;
  loopVar: string | null;
  loopVar2: string | null;
  hashListing: boolean;
  foreach: boolean;
}
export interface ListElseEl extends ElBase {
  kind: 'listElse';
}
export interface ElseOfListEl extends ElBase {
  kind: 'elseOfList';
}
export interface ItemsEl extends ElBase {
  kind: 'items';
  loopVar: string;
  loopVar2: string | null;
}
export interface SepEl extends ElBase {
  kind: 'sep';
}
export interface SwitchEl extends ElBase {
  kind: 'switch';
  value: Expr;
  /** Index of the first Case in children (1 when a whitespace/comment section precedes it). */
  firstCase: number;
}
export interface CaseEl extends ElBase {
  kind: 'case';
  cond: Expr | null;
}
export type AssignScope = 'namespace' | 'global' | 'local';
export type AssignOp = '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '++' | '--';
export interface AssignEl extends ElBase {
  kind: 'assign';
  name: string;
  op: AssignOp;
  value: Expr | null;
  scope: AssignScope;
  ns: Expr | null;
  /** Position of the variable name (errors point at the assignment, not the tag). */
  namePos: Pos;
}
export interface AssignInstrEl extends ElBase {
  kind: 'assignInstr';
  scope: AssignScope;
  ns: Expr | null;
}
export interface BlockAssignEl extends ElBase {
  kind: 'blockAssign';
  name: string;
  scope: AssignScope;
  ns: Expr | null;
  markupFormat: string | null;
}
export interface IncludeEl extends ElBase {
  kind: 'include';
  name: Expr;
  parse: Expr | null;
  encoding: Expr | null;
  ignoreMissing: Expr | null;
}
export interface ImportEl extends ElBase {
  kind: 'import';
  name: Expr;
  ns: string;
}
export interface MacroParam {
  name: string;
  defaultValue: Expr | null;
}
export interface MacroEl extends ElBase {
  kind: 'macro';
  name: string;
  isFunction: boolean;
  params: MacroParam[];
  catchAll: string | null;
  /** Raw source of the definition (for ?interpret'ed templates and `.args`). */
  usesArgs: boolean;
}
export interface CompressEl extends ElBase {
  kind: 'compress';
}
export interface CallEl extends ElBase {
  kind: 'call';
  callee: Expr;
  named: { name: string; value: Expr }[] | null;
  positional: Expr[] | null;
  loopVars: string[] | null;
  /** Raw source text between the start and end tag (null for an empty-element call). */
  bodySource: string | null;
  /** Written `<#call …>` (shown like `<@…>` all the same, as FreeMarker does). */
  legacy: boolean;
}
export interface CommentEl extends ElBase {
  kind: 'comment';
  text: string;
}
export interface SettingEl extends ElBase {
  kind: 'setting';
  name: string;
  value: Expr;
}
export interface BreakEl extends ElBase {
  kind: 'break';
}
export interface ContinueEl extends ElBase {
  kind: 'continue';
}
export interface ReturnEl extends ElBase {
  kind: 'return';
  value: Expr | null;
}
export interface StopEl extends ElBase {
  kind: 'stop';
  message: Expr | null;
}
export interface FlushEl extends ElBase {
  kind: 'flush';
}
export interface TrimEl extends ElBase {
  kind: 'trim';
  left: boolean;
  right: boolean;
  name: string;
}
export interface NestedEl extends ElBase {
  kind: 'nested';
  args: Expr[];
}
export interface EscapeEl extends ElBase {
  kind: 'escape';
  variable: string;
  expr: Expr;
}
export interface NoEscapeEl extends ElBase {
  kind: 'noEscape';
}
export interface VisitEl extends ElBase {
  kind: 'visit';
  directive: 'visit' | 'recurse' | 'fallback';
}
export interface AttemptEl extends ElBase {
  kind: 'attempt';
}
export interface RecoverEl extends ElBase {
  kind: 'recover';
}
export interface OutputFormatEl extends ElBase {
  kind: 'outputFormat';
  format: string;
}
export interface AutoEscEl extends ElBase {
  kind: 'autoEsc';
  on: boolean;
}
export interface TransformEl extends ElBase {
  kind: 'transform';
  transform: Expr;
  args: { name: string; value: Expr }[];
}

/** The parsed template: the root element plus what the header and the parser collected. */
export interface ParsedTemplate {
  root: El;
  macros: MacroEl[];
  outputFormat: string;
  autoEscape: boolean;
  /** <#ftl attributes={…}> */
  attributes: Record<string, unknown>;
  source: string;
  /** White-space stripping in effect (the #ftl header can turn it off). */
  stripWhitespace: boolean;
  /** The template has #t/#lt/#rt/#nt (without them the deliberate-trim passes have nothing to do). */
  hasTrim: boolean;
}
