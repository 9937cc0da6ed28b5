/**
 * The sandbox's one host function (interpolated into worker-source.ts): `host(method, args)` takes
 * a number and a string and returns the reply string.
 *
 * quickjs-emscripten's own calling convention for host functions (`newFunction`) wraps every call
 * in a generator-driven scope with a lifetime object per argument: about 3 µs a call, the largest
 * part of a platform call that runs in the worker (in-worker-source.ts). Since this function's
 * arguments and result are plain, the context's C → host dispatcher is wrapped so that a call of
 * this function reads its two arguments and makes its string result through the library's FFI
 * directly (about 0.3 µs); any other function, or a call with other than two arguments, takes the
 * library's path. The result is a new string value owned by QuickJS, exactly what the library
 * returns (it duplicates its handle and frees the original). When the library's internals are not
 * as expected (another version), the library's path serves every call.
 *
 * Expects in scope: `roomFor` (a reply is only handed over when the memory can take it, else the
 * sandbox's prepared `full` error string is).
 */
export const HOST_FUNCTION_SOURCE = String.raw`
function hostFunction(ctx, answer, full) {
  const slow = (method, args) => {
    const reply = answer(ctx.getNumber(method), ctx.getString(args));
    return roomFor(reply) ? ctx.newString(reply) : full().dup();
  };
  const host = ctx.newFunction('host', slow);
  const cb = ctx.cToHostCallbacks;
  const ffi = ctx.ffi;
  const memory = ctx.memory;
  const module = ctx.module;
  const ctxPtr = ctx.ctx && ctx.ctx.value;
  if (!cb || typeof cb.callFunction !== 'function' || typeof ctx.getFunction !== 'function' || !ffi || !memory ||
      !module || typeof ctxPtr !== 'number' || typeof module._malloc !== 'function' ||
      typeof memory.consumeJSCharPointer !== 'function') return host;
  const library = cb.callFunction;
  cb.callFunction = (c, thisPtr, argc, argv, fnId) => {
    if (argc !== 2 || c !== ctxPtr || ctx.getFunction(fnId) !== slow) return library(c, thisPtr, argc, argv, fnId);
    let reply;
    try {
      const method = ffi.QTS_GetFloat64(ctxPtr, ffi.QTS_ArgvGetJSValueConstPointer(argv, 0));
      const args = memory.consumeJSCharPointer(ffi.QTS_GetString(ctxPtr, ffi.QTS_ArgvGetJSValueConstPointer(argv, 1)));
      reply = answer(method, args);
    } catch (e) {
      reply = 'e' + JSON.stringify({ message: String(e && e.message) });
    }
    if (!roomFor(reply)) return ffi.QTS_DupValuePointer(ctxPtr, full().value);
    const size = module.lengthBytesUTF8(reply) + 1;
    const text = module._malloc(size);
    module.stringToUTF8(reply, text, size);
    try {
      return ffi.QTS_NewString(ctxPtr, text);
    } finally {
      module._free(text);
    }
  };
  return host;
}
`;
