/**
 * The JavaScript that runs inside the sandbox before the script: it builds the frozen RMP*
 * objects from the method table. Each method serialises its arguments to JSON text and calls the
 * one host function with (method id, JSON text); the reply is text too — `v<json>` (a value),
 * `u` (undefined) or `e<json {message}>` (an error, thrown here as an Error so the script can
 * catch it and its stack shows the script's line). Nothing but strings crosses the boundary, and
 * the host function is only reachable through these closures.
 *
 * RMPData.setOutput runs here: it keeps the output as `s<text>`, `j<json>` or `n` (nothing);
 * the function this code evaluates to returns a getter of it.
 */
export const PRELUDE = String.raw`(function (host, table) {
  'use strict';
  var stringify = JSON.stringify;
  var parse = JSON.parse;
  var ErrorCtor = Error;
  var defineProperty = Object.defineProperty;
  var freeze = Object.freeze;
  var output = 'n';

  function call(id, args) {
    var n = args.length;
    while (n > 0 && args[n - 1] === undefined) n--;
    args.length = n;
    var reply = host(id, stringify(args));
    var tag = reply.charAt(0);
    if (tag === 'u') return undefined;
    if (tag === 'v') return parse(reply.slice(1));
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

  var objects = parse(table);
  for (var i = 0; i < objects.length; i++) {
    var objectName = objects[i][0];
    var target = {};
    var entries = objects[i][1];
    for (var j = 0; j < entries.length; j++) {
      defineProperty(target, entries[j][0], { value: method(entries[j][0], entries[j][1]), enumerable: true });
    }
    if (objectName === 'RMPData') {
      defineProperty(target, 'setOutput', {
        value: { setOutput(value) { output = encode(value); } }.setOutput,
        enumerable: true,
      });
    }
    defineProperty(globalThis, objectName, { value: freeze(target), enumerable: false });
  }
  return function () { return output; };
})`;
