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
  k: 'num';
  value: number | BigDec;
  text: string;
}
export interface StrLit extends ExprBase {
  k: 'str';
  value: string;
  /** Interpolated parts (strings and interpolations) when the literal contains ${...} or #{...}. */
  parts?: (string | InterpEl)[];
  raw: boolean;
  /** Source text of the literal, quotes included (canonical form). */
  src: string;
}
export interface BoolLit extends ExprBase {
  k: 'bool';
  value: boolean;
}
export interface ListLit extends ExprBase {
  k: 'list';
  items: Expr[];
}
export interface HashLit extends ExprBase {
  k: 'hash';
  keys: Expr[];
  values: Expr[];
}
export interface Ident extends ExprBase {
  k: 'id';
  name: string;
}
export interface SpecialVar extends ExprBase {
  k: 'special';
  name: string;
  /** .output_format / .auto_esc are fixed at parse time. */
  parseTime?: string | boolean;
}
export interface Dot extends ExprBase {
  k: 'dot';
  target: Expr;
  name: string;
}
export interface DynKey extends ExprBase {
  k: 'key';
  target: Expr;
  key: Expr;
}
export interface Call extends ExprBase {
  k: 'call';
  target: Expr;
  args: Expr[];
}
export interface BuiltInExpr extends ExprBase {
  k: 'bi';
  target: Expr;
  name: string;
  /** Arguments when the built-in is called directly (`x?foo(a, b)`); undefined for the bare form. */
  args?: Expr[];
  /** Output format bound at parse time (?esc, ?no_esc, ?markup_string…). */
  outputFormat?: string;
  autoEscaping?: boolean;
}
export interface DefaultTo extends ExprBase {
  k: 'default';
  target: Expr;
  rhs?: Expr;
}
export interface Exists extends ExprBase {
  k: 'exists';
  target: Expr;
}
export interface Not extends ExprBase {
  k: 'not';
  target: Expr;
}
export interface Neg extends ExprBase {
  k: 'neg';
  target: Expr;
  minus: boolean;
}
export interface Arith extends ExprBase {
  k: 'arith';
  op: '-' | '*' | '/' | '%';
  left: Expr;
  right: Expr;
}
export interface Add extends ExprBase {
  k: 'add';
  left: Expr;
  right: Expr;
}
export interface Cmp extends ExprBase {
  k: 'cmp';
  /** The operator as written (==, =, !=, <, lt, &lt;, <=, lte, >, gt, >=, gte …). */
  op: string;
  kind: 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';
  left: Expr;
  right: Expr;
}
export interface And extends ExprBase {
  k: 'and';
  left: Expr;
  right: Expr;
}
export interface Or extends ExprBase {
  k: 'or';
  left: Expr;
  right: Expr;
}
export interface Range extends ExprBase {
  k: 'range';
  left: Expr;
  right?: Expr;
  end: 'inclusive' | 'exclusive' | 'unbound' | 'size';
  op: string;
}
export interface Paren extends ExprBase {
  k: 'paren';
  target: Expr;
}
export interface Lambda extends ExprBase {
  k: 'lambda';
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
  k: 'text';
  text: string;
  unparsed: boolean;
}
export interface InterpEl extends ElBase {
  k: 'interp';
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
  k: 'mixed';
}
export interface IfEl extends ElBase {
  k: 'if';
}
export interface CondEl extends ElBase {
  k: 'cond';
  cond: Expr | null;
  type: 'if' | 'elseif' | 'else';
}
export interface ListEl extends ElBase {
  k: 'list';
  source: Expr;
  loopVar: string | null;
  loopVar2: string | null;
  hashListing: boolean;
  foreach: boolean;
}
export interface ListElseEl extends ElBase {
  k: 'listElse';
}
export interface ElseOfListEl extends ElBase {
  k: 'elseOfList';
}
export interface ItemsEl extends ElBase {
  k: 'items';
  loopVar: string;
  loopVar2: string | null;
}
export interface SepEl extends ElBase {
  k: 'sep';
}
export interface SwitchEl extends ElBase {
  k: 'switch';
  value: Expr;
  /** Index of the first Case in children (1 when a whitespace/comment section precedes it). */
  firstCase: number;
}
export interface CaseEl extends ElBase {
  k: 'case';
  cond: Expr | null;
}
export type AssignScope = 'namespace' | 'global' | 'local';
export type AssignOp = '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '++' | '--';
export interface AssignEl extends ElBase {
  k: 'assign';
  name: string;
  op: AssignOp;
  value: Expr | null;
  scope: AssignScope;
  ns: Expr | null;
  /** Position of the variable name (errors point at the assignment, not the tag). */
  namePos: Pos;
}
export interface AssignInstrEl extends ElBase {
  k: 'assignInstr';
  scope: AssignScope;
  ns: Expr | null;
}
export interface BlockAssignEl extends ElBase {
  k: 'blockAssign';
  name: string;
  scope: AssignScope;
  ns: Expr | null;
  markupFormat: string | null;
}
export interface IncludeEl extends ElBase {
  k: 'include';
  name: Expr;
  parse: Expr | null;
  encoding: Expr | null;
  ignoreMissing: Expr | null;
}
export interface ImportEl extends ElBase {
  k: 'import';
  name: Expr;
  ns: string;
}
export interface MacroParam {
  name: string;
  defaultValue: Expr | null;
}
export interface MacroEl extends ElBase {
  k: 'macro';
  name: string;
  isFunction: boolean;
  params: MacroParam[];
  catchAll: string | null;
  /** Raw source of the definition (for ?interpret'ed templates and `.args`). */
  usesArgs: boolean;
}
export interface CompressEl extends ElBase {
  k: 'compress';
}
export interface CallEl extends ElBase {
  k: 'call';
  callee: Expr;
  named: { name: string; value: Expr }[] | null;
  positional: Expr[] | null;
  loopVars: string[] | null;
  /** Raw source text between the start and end tag (null for an empty-element call). */
  bodySource: string | null;
  legacy: boolean;
}
export interface CommentEl extends ElBase {
  k: 'comment';
  text: string;
}
export interface SettingEl extends ElBase {
  k: 'setting';
  name: string;
  value: Expr;
}
export interface BreakEl extends ElBase {
  k: 'break';
}
export interface ContinueEl extends ElBase {
  k: 'continue';
}
export interface ReturnEl extends ElBase {
  k: 'return';
  value: Expr | null;
}
export interface StopEl extends ElBase {
  k: 'stop';
  message: Expr | null;
}
export interface FlushEl extends ElBase {
  k: 'flush';
}
export interface TrimEl extends ElBase {
  k: 'trim';
  left: boolean;
  right: boolean;
  name: string;
}
export interface NestedEl extends ElBase {
  k: 'nested';
  args: Expr[];
}
export interface EscapeEl extends ElBase {
  k: 'escape';
  variable: string;
  expr: Expr;
}
export interface NoEscapeEl extends ElBase {
  k: 'noEscape';
}
export interface VisitEl extends ElBase {
  k: 'visit';
  directive: 'visit' | 'recurse' | 'fallback';
}
export interface AttemptEl extends ElBase {
  k: 'attempt';
}
export interface RecoverEl extends ElBase {
  k: 'recover';
}
export interface OutputFormatEl extends ElBase {
  k: 'outputFormat';
  format: string;
}
export interface AutoEscEl extends ElBase {
  k: 'autoEsc';
  on: boolean;
}
export interface TransformEl extends ElBase {
  k: 'transform';
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
