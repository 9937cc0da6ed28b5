// @ts-check
// The prelude of `<@script env="javascript">`, the platform's legacy (Rhino) engine, evaluated
// inside QuickJS (not by Node) instead of the RMP* objects when the table is
// `{"legacy": cap, "variables": max}`: no RMP* objects and no platform calls; print() writes to
// the directive's output, setVariable() sets a template variable. Both are bounded together by
// `cap` characters (an eighth of the script's memory), and the variables by their number. A
// variable's value is taken as JSON when setVariable is called; the host sets the variables after
// the script, in the order first set. The getter gives `l<json printed text>` and one
// `\n<json name>\t<json value>` per variable. Read as text (sandbox-code.ts).
// eslint-disable-next-line @typescript-eslint/no-unused-expressions -- QuickJS evaluates this file for its value
/** @type {(host: unknown, table: string) => () => string} */ (
  function (host, table) {
    'use strict';
    var stringify = JSON.stringify;
    var ErrorCtor = Error;
    var defineProperty = Object.defineProperty;
    var limits = JSON.parse(table);
    var cap = limits.legacy;
    var maxVariables = limits.variables;
    /** @type {string[]} */
    var printed = [];
    var used = 0;
    /** @type {string[]} */
    var names = [];
    /** @type {Record<string, string>} */
    var values = Object.create(null);
    var StringCtor = String;
    var TypeErrorCtor = TypeError;
    var isArray = Array.isArray;
    var keys = Object.keys;
    var apply = Reflect.apply;
    var WeakMapCtor = WeakMap;
    var weakGet = WeakMap.prototype.get;
    var weakSet = WeakMap.prototype.set;
    var global = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (globalThis));
    delete global.WeakRef;
    delete global.FinalizationRegistry;
    // No method of a prototype is called here (push, join …): the script may have replaced them,
    // and the getter runs after the script, outside its limits. Arrays grow by defineProperty.
    /** @param {string[]} list @param {string} value */
    function append(list, value) {
      defineProperty(
        list,
        list.length,
        /** @type {PropertyDescriptor} */ ({
          __proto__: null,
          value: value,
          writable: true,
          enumerable: true,
          configurable: true,
        }),
      );
    }
    /** @param {number} n @param {string} what */
    function charge(n, what) {
      if (used + n > cap)
        throw new ErrorCtor(
          what +
            ': the printed text and variables of this script would exceed ' +
            cap +
            ' characters (an eighth of its memoryBytes)',
        );
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
    /** @param {unknown} v @param {WeakMap<object, number>} sizes @param {number} room @returns {number} */
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
        var record = /** @type {Record<string, unknown>} */ (v);
        for (var j = 0; j < ks.length && n <= room; j++)
          n += ks[j].length + 4 + measure(record[ks[j]], sizes, room);
      }
      if (n > room) charge(cap + 1, 'setVariable');
      apply(weakSet, sizes, [v, n]);
      return n;
    }
    /** @param {unknown} value @param {number} room */
    function boundedStringify(value, room) {
      if (measure(value, new WeakMapCtor(), room) > room) charge(cap + 1, 'setVariable');
      var n = 0;
      return stringify(
        value,
        /** @this {unknown} @param {string} key @param {unknown} v */ function (key, v) {
          n += 1 + (isArray(this) ? 0 : key.length + 3) + (typeof v === 'string' ? v.length : 0);
          if (n > room) charge(cap + 1, 'setVariable');
          return v;
        },
      );
    }
    /** @param {unknown} name @param {unknown} value */
    function setVariable(name, value) {
      if (typeof name !== 'string' || name.length === 0 || name.length > 256)
        throw new TypeErrorCtor(
          'setVariable: argument 1 (name) must be a non-empty string of at most 256 characters',
        );
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
  }
);
