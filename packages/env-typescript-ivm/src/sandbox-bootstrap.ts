/**
 * Source run inside every fresh context before user code. It takes the two host hooks off the
 * global, closes over them and over the intrinsics it needs (so user code that patches
 * prototypes only hurts itself), then installs the frozen `cyrnel`, `console` and timers.
 * Host hooks: `__cyrnelSync(kind, payload)` (console, output; blocking, gives backpressure)
 * and `__cyrnelAsync` (a Reference whose function resolves `{ ok, value | error }`).
 */
export const BOOTSTRAP_SOURCE = String.raw`(function () {
'use strict';
const g = globalThis;
const syncCall = g.__cyrnelSync;
const asyncRef = g.__cyrnelAsync;
delete g.__cyrnelSync;
delete g.__cyrnelAsync;
delete g.SharedArrayBuffer;
delete g.Atomics;
delete g.WebAssembly;
const O = Object;
const freeze = O.freeze, getProto = O.getPrototypeOf, objectProto = O.prototype, keysOf = O.keys;
const isArray = Array.isArray, stringify = JSON.stringify, apply = Reflect.apply;
const ErrorCtor = Error, TypeErrorCtor = TypeError, StringCtor = String, ProxyCtor = Proxy;
const refApply = asyncRef.apply;
const uncurry = (fn) => (self, ...args) => apply(fn, self, args);
const push = uncurry(Array.prototype.push), pop = uncurry(Array.prototype.pop);
const indexOf = uncurry(Array.prototype.indexOf), slice = uncurry(String.prototype.slice);
const then = uncurry(Promise.prototype.then);
const isFinite = Number.isFinite;
const callOptions = freeze({ __proto__: null,
  arguments: freeze({ __proto__: null, copy: true }),
  result: freeze({ __proto__: null, promise: true, copy: true }) });

const hostCall = (kind, args) => apply(refApply, asyncRef, [undefined, [kind, args], callOptions]);
const call = async (kind, args) => {
  const reply = await hostCall(kind, args);
  if (reply.ok) return reply.value;
  const e = reply.error;
  const err = new ErrorCtor(StringCtor(e.message));
  err.status = e.status;
  err.code = e.code;
  throw err;
};

const describe = (v) => {
  if (v === undefined) return 'undefined';
  if (typeof v !== 'object') return typeof v;
  const p = getProto(v);
  return p && p.constructor && typeof p.constructor.name === 'string' ? 'a ' + p.constructor.name : 'an object';
};
const plain = (v, path, seen) => {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (isFinite(v)) return v;
    throw new TypeErrorCtor('cyrnel.output: ' + path + ' is ' + v + '; only finite numbers are JSON');
  }
  if (typeof v === 'object') {
    if (indexOf(seen, v) !== -1) throw new TypeErrorCtor('cyrnel.output: ' + path + ' is a circular reference');
    push(seen, v);
    let copy;
    if (isArray(v)) {
      copy = [];
      for (let i = 0; i < v.length; i++) copy[i] = plain(v[i], path + '[' + i + ']', seen);
    } else {
      const p = getProto(v);
      if (p !== objectProto && p !== null) {
        throw new TypeErrorCtor('cyrnel.output: ' + path + ' is ' + describe(v) + '; only plain objects, arrays, strings, finite numbers, booleans and null can be output');
      }
      copy = {};
      const ks = keysOf(v);
      for (let i = 0; i < ks.length; i++) {
        const item = v[ks[i]];
        if (item !== undefined) copy[ks[i]] = plain(item, path + '.' + ks[i], seen);
      }
    }
    pop(seen);
    return copy;
  }
  throw new TypeErrorCtor('cyrnel.output: ' + path + ' is ' + describe(v) + ', which is not JSON-serialisable');
};
const output = (obj) => {
  if (obj === null || typeof obj !== 'object' || isArray(obj) || (getProto(obj) !== objectProto && getProto(obj) !== null)) {
    throw new TypeErrorCtor('cyrnel.output expects a plain object, got ' + (isArray(obj) ? 'an array' : describe(obj)));
  }
  const copy = plain(obj, 'output', []);
  const ks = keysOf(copy);
  const entries = [];
  for (let i = 0; i < ks.length; i++) entries[i] = [ks[i], stringify(copy[ks[i]])];
  const problem = syncCall('output', entries);
  if (problem) throw new ErrorCtor(problem);
};

const format = (v) => {
  if (typeof v === 'string') return v;
  if (v instanceof ErrorCtor) return StringCtor(v.name) + ': ' + StringCtor(v.message);
  try {
    const s = stringify(v);
    if (typeof s === 'string') return s;
  } catch {}
  try { return StringCtor(v); } catch { return '[unprintable]'; }
};
const full = { __proto__: null, stdout: false, stderr: false };
const write = (stream, args) => {
  if (full[stream]) return;
  let line = '';
  for (let i = 0; i < args.length; i++) line += (i === 0 ? '' : ' ') + format(args[i]);
  // Short lines go straight through (the host cuts them); only long ones ask for the room left first.
  if (line.length > 4096) {
    const room = syncCall('room', stream);
    if (line.length + 1 > room) line = slice(line, 0, room);
  }
  if (!syncCall(stream, line + '\n')) full[stream] = true;
};
const consoleObject = freeze({
  log: (...a) => write('stdout', a), info: (...a) => write('stdout', a), debug: (...a) => write('stdout', a),
  warn: (...a) => write('stderr', a), error: (...a) => write('stderr', a),
});

let nextTimer = 1;
const liveTimers = { __proto__: null };
const setTimeoutFn = (fn, ms, ...args) => {
  if (typeof fn !== 'function') throw new TypeErrorCtor('setTimeout expects a function');
  const id = nextTimer++;
  liveTimers[id] = true;
  then(call('sleep', [+ms || 0]), () => {
    if (!liveTimers[id]) return;
    delete liveTimers[id];
    try { apply(fn, undefined, args); } catch (err) { write('stderr', ['Uncaught error in setTimeout callback:', err]); }
  }, () => { delete liveTimers[id]; });
  return id;
};
const clearTimeoutFn = (id) => { delete liveTimers[id]; };

const toolsOf = (serviceId) => new ProxyCtor(freeze({ __proto__: null }), { __proto__: null,
  get: (_t, toolId) => typeof toolId !== 'string' ? undefined : freeze({ __proto__: null,
    invoke: (params) => call('invoke', [serviceId, toolId, params === undefined ? {} : params]) }) });
const services = new ProxyCtor(freeze({ __proto__: null }), { __proto__: null,
  get: (_t, serviceId) => typeof serviceId !== 'string' ? undefined : freeze({ __proto__: null, tools: toolsOf(serviceId) }) });
const discover = freeze({
  services: (query) => call('discoverServices', [query === undefined ? {} : query]),
  tools: (query) => call('discoverTools', [query === undefined ? {} : query]),
  tool: (serviceId, toolId) => call('describeTool', [serviceId, toolId]),
});
const cyrnel = freeze({ output, services, discover, console: consoleObject });
const fixed = (value) => ({ value, writable: false, enumerable: false, configurable: false });
O.defineProperty(g, 'cyrnel', fixed(cyrnel));
O.defineProperty(g, 'console', fixed(consoleObject));
O.defineProperty(g, 'setTimeout', fixed(setTimeoutFn));
O.defineProperty(g, 'clearTimeout', fixed(clearTimeoutFn));
})();`;
