/**
 * FreeMarker's utility transforms (freemarker.template.utility.*): the shared variables every
 * FreeMarker Configuration predefines (`compress`, `html_escape`, `normalize_newlines`,
 * `xml_escape`, `capture_output`), also what `?new` makes of their class names.
 * A transform filters the output of its body; its parameters are named, positional ones are ignored.
 */
import { compress } from './compress.js';
import type { Env } from './runtime.js';
import {
  DIRECTIVE,
  FmDate,
  JDouble,
  MarkupOutput,
  MatchItem,
  MatchResult,
  Namespace,
  StringBoolean,
  isHash,
  isNumber,
  isSequence,
} from './values.js';

export type TransformParams = ReadonlyMap<string, unknown> | null;

/** A TemplateTransformModel: `<@t named=…>body</@t>`. */
export class Transform {
  readonly [DIRECTIVE] = true;
  constructor(
    /** The class name FreeMarker shows as the wrapper ("f.t.utility.<name>"). */
    readonly javaClass: string,
    /**
     * Checks the parameters (throwing a TransformFailure with FreeMarker's message), then returns
     * what to do with the body's output (the directive runs the body in between).
     */
    readonly open: (env: Env, params: TransformParams) => (output: string) => void,
  ) {}
}

/** A TemplateModelException of a transform: FreeMarker's message as it is, at the directive call. */
export class TransformFailure extends Error {
  constructor(
    message: string,
    readonly kind = 'TemplateModelException',
  ) {
    super(message);
  }
}

const writeFiltered =
  (env: Env, filter: (s: string) => string) =>
  (output: string): void => {
    if (output !== '') env.write(filter(output));
  };

/** StandardCompress: `single_line` (boolean) and `buffer_size` (number, only checked) parameters. */
export const STANDARD_COMPRESS = new Transform('StandardCompress', (env, params) => {
  let singleLine = false;
  const size = params?.get('buffer_size');
  if (size !== undefined && !isNumber(size))
    throw new TransformFailure('Expecting numerical argument to buffer_size');
  const flag = params?.get('single_line');
  if (flag !== undefined) {
    const b = asBoolean(flag);
    if (b === undefined) throw new TransformFailure('Expecting boolean argument to single_line');
    singleLine = b;
  }
  return writeFiltered(env, (s) => compress(s, singleLine));
});

/** The value of a TemplateBooleanModel, or undefined for any other value. */
function asBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v instanceof StringBoolean) return v.value;
  if (v instanceof MatchResult) return v.matched;
  return undefined;
}

/** HtmlEscape: `<`, `>`, `&` and `"` (not the apostrophe). */
export const HTML_ESCAPE = new Transform('HtmlEscape', (env) =>
  writeFiltered(env, (s) => s.replace(/[<>&"]/g, (c) => ESCAPES[c])),
);

/** XmlEscape: `<`, `>`, `&`, `"` and `'`. */
export const XML_ESCAPE = new Transform('XmlEscape', (env) =>
  writeFiltered(env, (s) => s.replace(/[<>&"']/g, (c) => ESCAPES[c])),
);

const ESCAPES: Record<string, string> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '"': '&quot;',
  "'": '&apos;',
};

/**
 * NormalizeNewlines: each line (BufferedReader.readLine: ended by \n, \r\n or \r) followed by the
 * line separator of the JVM the oracle runs on (\n); an empty first line is dropped.
 */
export const NORMALIZE_NEWLINES = new Transform('NormalizeNewlines', (env) =>
  writeFiltered(env, normalizeNewlines),
);

export function normalizeNewlines(s: string): string {
  if (s === '') return '';
  const lines = s.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  let out = '';
  for (let i = 0; i < lines.length; i++) if (i > 0 || lines[i] !== '') out += lines[i] + '\n';
  return out;
}

const CAPTURE_NO_NAME =
  "Must specify the name of the variable in which to capture the output with the 'var' or 'local' or 'global' parameter.";

/** CaptureOutput: the body's output goes to a variable (`var`, `local` or `global`; `namespace` with `var`). */
export const CAPTURE_OUTPUT = new Transform('CaptureOutput', (env, params) => {
  if (params === null) throw new TransformFailure(CAPTURE_NO_NAME);
  const ns = params.get('namespace');
  let scope: 'var' | 'local' | 'global' = 'var';
  let name = params.get('var');
  if (name === undefined) {
    name = params.get('local');
    scope = 'local';
    if (name === undefined) {
      name = params.get('global');
      scope = 'global';
    }
    if (name === undefined) throw new TransformFailure(CAPTURE_NO_NAME);
  }
  if (params.size === 2) {
    if (ns === undefined) throw new TransformFailure('Second parameter can only be namespace');
    if (scope === 'local') throw new TransformFailure('Cannot specify namespace for a local assignment');
    if (scope === 'global') throw new TransformFailure('Cannot specify namespace for a global assignment');
    if (!(ns instanceof Namespace)) {
      throw new TransformFailure(
        `namespace parameter does not specify a namespace. It is a ${javaModelClass(ns)}`,
      );
    }
  } else if (params.size !== 1) {
    throw new TransformFailure("Bad parameters. Use only one of 'var' or 'local' or 'global' parameters.");
  }
  if (typeof name !== 'string' && !(name instanceof MatchItem))
    throw new TransformFailure("'var' or 'local' or 'global' parameter doesn't evaluate to a string");
  const varName = typeof name === 'string' ? name : name.text;
  return (output) => {
    if (scope === 'local') {
      if (env.frame === null)
        throw new TransformFailure(
          `Could not set variable ${varName}: Not executing macro body`,
          'IOException',
        );
      env.frame.locals.set(varName, output);
    } else if (scope === 'global') env.globals.set(varName, output);
    else ((ns as Namespace | undefined) ?? env.ns).vars.set(varName, output);
  };
});

/** The Java class of a template model, as CaptureOutput names a bad namespace parameter. */
function javaModelClass(v: unknown): string {
  if (v === true) return 'freemarker.template.TrueTemplateBooleanModel';
  if (v === false) return 'freemarker.template.FalseTemplateBooleanModel';
  if (typeof v === 'string' || v instanceof MatchItem) return 'freemarker.template.SimpleScalar';
  if (isNumber(v) && !(v instanceof JDouble)) return 'freemarker.template.SimpleNumber';
  if (v instanceof FmDate) return 'freemarker.template.SimpleDate';
  if (v instanceof MarkupOutput) return 'freemarker.core.TemplateHTMLOutputModel';
  if (isSequence(v)) return 'freemarker.template.SimpleSequence';
  if (isHash(v)) return 'freemarker.core.HashLiteral$SequenceHash';
  return 'freemarker.template.TemplateModel';
}

/** What FreeMarker's Configuration puts in its shared variables (after the data model in lookups). */
const SHARED_VARIABLES: ReadonlyMap<string, Transform> = new Map([
  ['capture_output', CAPTURE_OUTPUT],
  ['compress', STANDARD_COMPRESS],
  ['html_escape', HTML_ESCAPE],
  ['normalize_newlines', NORMALIZE_NEWLINES],
  ['xml_escape', XML_ESCAPE],
]);

export function sharedVariable(name: string): Transform | undefined {
  return SHARED_VARIABLES.get(name);
}

/** `?new` of a FreeMarker utility class name: the same transforms. */
export const UTILITY_CLASSES: ReadonlyMap<string, Transform> = new Map([
  ['freemarker.template.utility.StandardCompress', STANDARD_COMPRESS],
  ['freemarker.template.utility.NormalizeNewlines', NORMALIZE_NEWLINES],
  ['freemarker.template.utility.HtmlEscape', HTML_ESCAPE],
  ['freemarker.template.utility.XmlEscape', XML_ESCAPE],
  ['freemarker.template.utility.CaptureOutput', CAPTURE_OUTPUT],
]);
