// @ts-check
// The request-input marking (markPaths, markedPaths), evaluated inside QuickJS (not by Node): the
// sandbox compiles it in the script's context the first time a reply carries marks (most scripts
// never meet request input). A function of the captured (isArray, keys, WeakSetCtor) giving both.
// Objects of a request's input (marked by the host) stay marked here, so that the host can mark
// them again when they come back as arguments: see ../bridge.ts. Read as text (sandbox-code.ts).
/**
 * @typedef {Array<string | number>} Path
 * @typedef {(isArray: (v: unknown) => v is unknown[], keys: (o: object) => string[], WeakSetCtor: WeakSetConstructor)
 *   => { markPaths(value: unknown, paths: Path[]): void, markedPaths(value: unknown): Path[] }} Marking
 */
// eslint-disable-next-line @typescript-eslint/no-unused-expressions -- QuickJS evaluates this file for its value
/** @type {Marking} */ (
  function (isArray, keys, WeakSetCtor) {
    'use strict';
    var marked = new WeakSetCtor();
    /** @type {(v: unknown) => v is Record<string | number, unknown>} */
    function isObject(v) {
      return v !== null && typeof v === 'object';
    }

    /** @param {unknown} value @param {Array<Array<string | number>>} paths */
    function markPaths(value, paths) {
      for (var i = 0; i < paths.length; i++) {
        var v = value;
        var path = paths[i];
        for (var j = 0; j < path.length && isObject(v); j++) v = v[path[j]];
        if (isObject(v)) marked.add(v);
      }
    }

    /** @param {unknown} value */
    function markedPaths(value) {
      /** @type {Array<Array<string | number>>} */
      var paths = [];
      var seen = new WeakSetCtor();
      /** @type {Array<[unknown, Array<string | number>]>} */
      var stack = [[value, []]];
      while (stack.length > 0) {
        var top = /** @type {[unknown, Array<string | number>]} */ (stack.pop());
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
  }
);
