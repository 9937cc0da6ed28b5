/**
 * What the sandbox compiles of ours. The RMP* objects themselves are made by the worker with host
 * functions (worker-source.ts, "The RMP* objects"): no JavaScript of ours is parsed for them, as
 * QuickJS parses about 13 characters a microsecond and the former 2.3 KB prelude was half of a
 * script's start. What is left here is JavaScript only the rare cases need, compiled in the
 * script's context the first time they do, and the legacy engine's prelude.
 */
/** Whole-line comments and indentation out: the sandbox parses this text. */
const compact = (source: string) => source.replace(/^\s*\/\/.*$/gm, '').replace(/^\s+/gm, '');

/**
 * Done in every context before the script, in one evaluation: the constructors that could run
 * code after the script ends are removed (scripts share a runtime, whose garbage collector and
 * job queue are common: worker-source.ts), and the intrinsics the RMP* objects use are captured
 * before the script can replace them — JSON.stringify, JSON.parse, Object.freeze, Error,
 * Array.of, Array.isArray, Object.keys, WeakSet, in that order (INTRINSICS).
 */
export const SETUP =
  'delete globalThis.WeakRef,delete globalThis.FinalizationRegistry,' +
  '[JSON.stringify,JSON.parse,Object.freeze,Error,Array.of,Array.isArray,Object.keys,WeakSet]';

/**
 * The request-input marking (markPaths, markedPaths), compiled in the script's context the first
 * time a reply carries marks (most scripts never meet request input): a function of the captured
 * (isArray, keys, WeakSetCtor) giving both. Objects of a request's input (marked by the host)
 * stay marked here, so that the host can mark them again when they come back as arguments:
 * see bridge.ts.
 */
export const MARKING = compact(String.raw`(function (isArray, keys, WeakSetCtor) {
'use strict';
var marked = new WeakSetCtor();
function isObject(v) { return v !== null && typeof v === 'object'; }

function markPaths(value, paths) {
  for (var i = 0; i < paths.length; i++) {
    var v = value;
    var path = paths[i];
    for (var j = 0; j < path.length && isObject(v); j++) v = v[path[j]];
    if (isObject(v)) marked.add(v);
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
return { markPaths: markPaths, markedPaths: markedPaths };
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
  var isArray = Array.isArray;
  var keys = Object.keys;
  var apply = Reflect.apply;
  var WeakMapCtor = WeakMap;
  var weakGet = WeakMap.prototype.get;
  var weakSet = WeakMap.prototype.set;
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
  // The text's size is measured first, each shared container once (h = [h, h] sixty times is
  // 2^60 leaves in 60 arrays), and refused past the room left; JSON.stringify then runs with a
  // replacer that counts what it writes (a getter may give a fresh value each time it is read).
  function measure(v, sizes, room) {
    if (v === null || typeof v !== 'object') return typeof v === 'string' ? v.length + 2 : 1;
    var known = apply(weakGet, sizes, [v]);
    if (known !== undefined) return known;
    apply(weakSet, sizes, [v, 0]);
    var n = 2;
    if (isArray(v)) {
      for (var i = 0; i < v.length && n <= room; i++) n += 1 + measure(v[i], sizes, room);
    } else {
      var ks = keys(v);
      for (var j = 0; j < ks.length && n <= room; j++) n += ks[j].length + 4 + measure(v[ks[j]], sizes, room);
    }
    if (n > room) charge(cap + 1, 'setVariable');
    apply(weakSet, sizes, [v, n]);
    return n;
  }
  function boundedStringify(value, room) {
    if (measure(value, new WeakMapCtor(), room) > room) charge(cap + 1, 'setVariable');
    var n = 0;
    return stringify(value, function (key, v) {
      n += 1 + (isArray(this) ? 0 : key.length + 3) + (typeof v === 'string' ? v.length : 0);
      if (n > room) charge(cap + 1, 'setVariable');
      return v;
    });
  }
  function setVariable(name, value) {
    if (typeof name !== 'string' || name.length === 0 || name.length > 256)
      throw new TypeErrorCtor('setVariable: argument 1 (name) must be a non-empty string of at most 256 characters');
    if (name === '__proto__')
      throw new TypeErrorCtor('setVariable: argument 1 (name) "__proto__" is not allowed');
    var json = boundedStringify(value === undefined ? null : value, cap - used - name.length);
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
