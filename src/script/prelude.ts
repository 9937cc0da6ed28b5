/**
 * The JavaScript that runs inside the sandbox before the script: it builds the frozen RMP*
 * objects from the method table. Each method serialises its arguments to JSON text and calls the
 * one host function with (method id, JSON text); the reply is text too — `v<json>` (a value),
 * `m<json [value, paths]>` (a value with the paths of the request-input objects in it), `u`
 * (undefined) or `e<json {message}>` (an error, thrown here as an Error so the script can
 * catch it and its stack shows the script's line). Arguments holding request-input objects are
 * sent as `m<json [args, paths]>`. Nothing but strings crosses the boundary, and
 * the host function is only reachable through these closures.
 *
 * RMPData.setOutput runs here: it keeps the output as `s<text>`, `j<json>` or `n` (nothing);
 * the function this code evaluates to returns a getter of it. The legacy engine has its own
 * prelude (LEGACY_PRELUDE).
 */
/** Whole-line comments and indentation out: the sandbox parses this for every script. */
const compact = (source: string) => source.replace(/^\s*\/\/.*$/gm, '').replace(/^\s+/gm, '');

/**
 * The request-input marking of the prelude (markPaths, markedPaths), compiled inside the sandbox
 * with the Function constructor the prelude captured, the first time a value carries marks. It is
 * handed to the prelude as an argument (a string made by the host), not written in it: QuickJS
 * parses about 15 characters a microsecond, and as a literal it was a quarter of the prelude.
 */
export const MARKING = compact(String.raw`'use strict';
function isObject(v) { return v !== null && typeof v === 'object'; }

function markPaths(value, paths) {
  for (var i = 0; i < paths.length; i++) {
    var v = value;
    var path = paths[i];
    for (var j = 0; j < path.length && isObject(v); j++) v = v[path[j]];
    if (isObject(v)) { marked.add(v); onMark(); }
  }
}

function markedPaths(value) {
  var paths = [];
  var seen = new WeakSetCtor();
  var stack = [[value, []]];
  while (stack.length > 0) {
    var top = stack.pop();
    var v = top[0];
    if (!isObject(v) || seen.has(v)) continue;
    seen.add(v);
    if (marked.has(v)) paths.push(top[1]);
    if (isArray(v)) for (var i = 0; i < v.length; i++) stack.push([v[i], top[1].concat([i])]);
    else {
      var ks = keys(v);
      for (var k = 0; k < ks.length; k++) stack.push([v[ks[k]], top[1].concat([ks[k]])]);
    }
  }
  return paths;
}
return { markPaths: markPaths, markedPaths: markedPaths };`);

/**
 * Called with (host, table, markingSource): `table` is the method table as one line per object,
 * `name<TAB>json entries` (made in the worker, worker-source.ts), so that only the names are read
 * while the sandbox is prepared and an object's entries are parsed the first time the script names
 * it (parsing the whole table was a fifth of the setup); `markingSource` is MARKING.
 */
export const PRELUDE = compact(String.raw`(function (host, table, markingSource) {
  'use strict';
  var stringify = JSON.stringify;
  var parse = JSON.parse;
  var ErrorCtor = Error;
  var defineProperty = Object.defineProperty;
  var freeze = Object.freeze;
  var output = 'n';
  // Scripts share a runtime (worker-source.ts): nothing may schedule work for after the script.
  delete globalThis.WeakRef;
  delete globalThis.FinalizationRegistry;

  // Objects of a request's input (marked by the host) stay marked here, so that the host can
  // mark them again when they come back as arguments: see bridge.ts.
  var WeakSetCtor = WeakSet;
  var marked = new WeakSetCtor();
  var anyMarked = false;
  var isArray = Array.isArray;
  var keys = Object.keys;

  // The marking code is compiled the first time it is needed (most scripts never meet request
  // input): parsed up front it cost every sandbox's setup about a quarter of its time.
  var FunctionCtor = Function;
  var marking = null;
  function mark() {
    return marking || (marking = FunctionCtor('isArray', 'keys', 'WeakSetCtor', 'marked', 'onMark', markingSource)(
      isArray, keys, WeakSetCtor, marked, function () { anyMarked = true; }));
  }

  function call(id, args) {
    var n = args.length;
    while (n > 0 && args[n - 1] === undefined) n--;
    args.length = n;
    var paths = anyMarked ? mark().markedPaths(args) : [];
    var reply = host(id, paths.length > 0 ? 'm' + stringify([args, paths]) : stringify(args));
    var tag = reply.charAt(0);
    if (tag === 'u') return undefined;
    if (tag === 'v') return parse(reply.slice(1));
    if (tag === 'm') {
      var both = parse(reply.slice(1));
      mark().markPaths(both[0], both[1]);
      return both[0];
    }
    throw new ErrorCtor(parse(reply.slice(1)).message);
  }

  function encode(value) {
    if (value === undefined || value === null) return 'n';
    if (typeof value === 'string') return 's' + value;
    var json = stringify(value);
    return json === undefined ? 'n' : 'j' + json;
  }

  function method(name, id) {
    // A method definition: named, not a constructor, no prototype.
    return { [name](...args) { return call(id, args); } }[name];
  }

  function build(objectName, entriesJson) {
    var entries = parse(entriesJson);
    var target = {};
    for (var j = 0; j < entries.length; j++) {
      defineProperty(target, entries[j][0], { value: method(entries[j][0], entries[j][1]), enumerable: true });
    }
    if (objectName === 'RMPData') {
      defineProperty(target, 'setOutput', {
        value: { setOutput(value) { output = encode(value); } }.setOutput,
        enumerable: true,
      });
    }
    return freeze(target);
  }

  // Each object is built the first time the script names it (a script uses few of them; building
  // all ~250 methods up front was a third of a sandbox's setup). The global stays read-only.
  function lazy(objectName, entries) {
    var built = null;
    defineProperty(globalThis, objectName, {
      get: { [objectName]() { return built || (built = build(objectName, entries)); } }[objectName],
      enumerable: false,
    });
  }

  // One line per object: name, a tab, its entries as JSON (preludeTable).
  var lines = table.split('\n');
  for (var i = 0; i < lines.length; i++) {
    var tab = lines[i].indexOf('\t');
    if (tab > 0) lazy(lines[i].slice(0, tab), lines[i].slice(tab + 1));
  }
  return function () { return output; };
})`);

/**
 * The prelude of `<@script env="javascript">`, the platform's legacy (Rhino) engine, evaluated
 * instead of PRELUDE when the table is `{"legacy": cap, "variables": max}`: no RMP* objects and
 * no platform calls; print() writes to the directive's output, setVariable() sets a template
 * variable. Both are bounded together by `cap` characters (an eighth of the script's memory), and
 * the variables by their number. A variable's value is taken as JSON when setVariable is called;
 * the host sets the variables after the script, in the order first set. The getter gives
 * `l<json printed text>` and one `\n<json name>\t<json value>` per variable.
 */
export const LEGACY_PRELUDE = compact(String.raw`(function (host, table) {
  'use strict';
  var stringify = JSON.stringify;
  var ErrorCtor = Error;
  var defineProperty = Object.defineProperty;
  var limits = JSON.parse(table);
  var cap = limits.legacy;
  var maxVariables = limits.variables;
  var printed = [];
  var used = 0;
  var names = [];
  var values = Object.create(null);
  var StringCtor = String;
  var TypeErrorCtor = TypeError;
  delete globalThis.WeakRef;
  delete globalThis.FinalizationRegistry;
  // No method of a prototype is called here (push, join …): the script may have replaced them,
  // and the getter runs after the script, outside its limits. Arrays grow by defineProperty.
  function append(list, value) {
    defineProperty(list, list.length, { __proto__: null, value: value, writable: true, enumerable: true, configurable: true });
  }
  function charge(n, what) {
    if (used + n > cap)
      throw new ErrorCtor(what + ': the printed text and variables of this script would exceed ' + cap +
        ' characters (an eighth of its memoryBytes)');
    used += n;
  }
  function print() {
    var text = '';
    for (var i = 0; i < arguments.length; i++) text += (i > 0 ? ' ' : '') + StringCtor(arguments[i]);
    charge(text.length, 'print');
    append(printed, text);
  }
  function setVariable(name, value) {
    if (typeof name !== 'string' || name.length === 0 || name.length > 256)
      throw new TypeErrorCtor('setVariable: argument 1 (name) must be a non-empty string of at most 256 characters');
    if (name === '__proto__')
      throw new TypeErrorCtor('setVariable: argument 1 (name) "__proto__" is not allowed');
    var json = stringify(value === undefined ? null : value);
    if (typeof json !== 'string') json = 'null';
    var known = name in values;
    if (!known && names.length >= maxVariables)
      throw new ErrorCtor('setVariable: a script may set at most ' + maxVariables + ' variables');
    charge(name.length + json.length, 'setVariable');
    if (!known) append(names, name);
    values[name] = json;
  }
  defineProperty(globalThis, 'print', { value: print, enumerable: false });
  defineProperty(globalThis, 'setVariable', { value: setVariable, enumerable: false });
  return function () {
    var text = '';
    for (var i = 0; i < printed.length; i++) text += printed[i];
    var out = 'l' + stringify(text);
    for (var j = 0; j < names.length; j++) out += '\n' + stringify(names[j]) + '\t' + values[names[j]];
    return out;
  };
})`);
