/**
 * Source run inside every fresh context before user code. It takes the host hooks off the
 * global, closes over them and over the intrinsics it needs (so user code that patches
 * prototypes only hurts itself), then installs the frozen `cyrnel`, `console` and timers.
 * Host hooks: `__cyrnelSync(kind, payload)` (console, output, clearing timers; blocking, gives
 * backpressure) and `__cyrnelAsync(kind, args, id)` (fire-and-forget; id 0: a console line or
 * output patch sent without waiting, see `post`). The script evaluates to
 * `[deliver, probe, begin, sent]`: the host answers calls by `deliver(id, ok, value, json)` (json 1: value is
 * a tool's answer as JSON text, parsed in here), `begin(stdoutCap, stderrCap, outputCap, posts)`
 * starts the execution's budget of writes sent without waiting, `sent()` counts them (the host
 * takes them all before it ends the run), and `probe()` (queued as
 * a task, so it runs once everything queued before it and its microtasks are done) tells
 * whether the program finished (0), waits on a host call or timer (1), or waits with nothing
 * pending (2): a promise nothing can settle, since the sandbox has no other source of events.
 *
 * Why answers arrive through `deliver` rather than as promises the host resolves: a promise
 * resolved with an object looks up `then` on it, which user code can patch, so a late answer could
 * run the program's code after it ended. `deliver` is ours and drops every answer once the main
 * function has settled (`finished`), so nothing of a finished program runs again, even when the
 * isolate is reused.
 */
export function bootstrapSource(maxPending: number, maxDepth: number): string {
  return runtimePrologue(maxPending, maxDepth) + HOST_CHANNEL + OUTPUT + CONSOLE + TIMERS + GLOBALS;
}

// The sections below are one function's body, cut where its concerns change: each uses the names
// the sections before it declared, so they only run concatenated, in this order.

/**
 * Opens the runtime's function: takes the host hooks off the global, removes what could be a
 * source of events or shared memory, and captures the intrinsics the rest uses.
 */
function runtimePrologue(maxPending: number, maxDepth: number): string {
  return `(function () {
'use strict';
const g = globalThis;
const syncCall = g.__cyrnelSync;
const asyncCall = g.__cyrnelAsync;
delete g.__cyrnelSync;
delete g.__cyrnelAsync;
delete g.SharedArrayBuffer;
delete g.Atomics;
delete g.WebAssembly;
// Its cleanup callbacks run whenever V8 collects garbage: possibly after the program ended.
delete g.FinalizationRegistry;
const O = Object;
const freeze = O.freeze, getProto = O.getPrototypeOf, objectProto = O.prototype, keysOf = O.keys;
const isArray = Array.isArray, stringify = JSON.stringify, parse = JSON.parse, apply = Reflect.apply;
const ErrorCtor = Error, TypeErrorCtor = TypeError, StringCtor = String, ProxyCtor = Proxy, PromiseCtor = Promise;
const errorToString = ErrorCtor.prototype.toString;
const uncurry = (fn) => (self, ...args) => apply(fn, self, args);
const push = uncurry(Array.prototype.push), pop = uncurry(Array.prototype.pop);
const indexOf = uncurry(Array.prototype.indexOf), slice = uncurry(String.prototype.slice);
const isFinite = Number.isFinite;
const maxPending = ${maxPending};
const maxDepth = ${maxDepth};
const MapCtor = Map;
const mapGet = uncurry(Map.prototype.get), mapSet = uncurry(Map.prototype.set);

`;
}

/**
 * Calls to the host and their answers: `send` registers a continuation under a fresh id, `deliver`
 * (which the host calls) settles it unless the program finished, `call` refuses arguments nested
 * too deeply and sends a JSON copy of the rest.
 */
const HOST_CHANNEL = `let finished = false;
let nextId = 1;
let outstanding = 0;
const waiting = { __proto__: null };
const timerIds = { __proto__: null };
// Writes sent without waiting for the host (a synchronous call is a hop from the isolate's thread
// to the host's and back): only while their bytes surely fit what is left of the stream's cap,
// counted at most (6 bytes a key's UTF-16 unit once escaped, 3 a text's) plus a fixed charge, and
// while the execution has posts left. The first write that may not fit goes the synchronous way,
// and so does every later one on that stream: the host's exact count decides from there.
const POST_CHARGE = 64;
let posted = 0;
let postsLeft = 0;
const quick = { __proto__: null, stdout: 0, stderr: 0, output: 0 };
const post = (stream, payload, bound) => {
  if (postsLeft <= 0 || bound + POST_CHARGE > quick[stream]) {
    quick[stream] = 0;
    return false;
  }
  quick[stream] -= bound + POST_CHARGE;
  postsLeft--;
  posted++;
  asyncCall(stream, payload, 0);
  return true;
};
const begin = (stdoutCap, stderrCap, outputCap, posts) => {
  quick.stdout = stdoutCap;
  quick.stderr = stderrCap;
  // The output's own braces count once, against the host's total.
  quick.output = outputCap - 2;
  postsLeft = posts;
};
const tooMany = (what) => {
  const err = new ErrorCtor(what + ': too many pending calls and timers (limit ' + maxPending + '); await or clear some first');
  err.status = 429;
  err.code = 'too_many_calls';
  err.reason = 'too_many_calls';
  return err;
};
// Registers the continuation before the host can answer; throws when args cannot be copied.
const send = (kind, args, settle) => {
  if (outstanding >= maxPending) throw tooMany(kind === 'sleep' ? 'setTimeout' : 'cyrnel');
  const id = nextId++;
  asyncCall(kind, args, id);
  waiting[id] = settle;
  outstanding++;
  return id;
};
const deliver = (id, ok, value, json) => {
  if (finished) return;
  const settle = waiting[id];
  if (settle === undefined) return;
  delete waiting[id];
  outstanding--;
  if (json === 1) {
    // A tool's answer as JSON text, parsed here: in the isolate's heap, under its limit.
    try {
      value = parse(value);
    } catch (e) {
      // Text that is not JSON is the upstream's fault; anything else (memory) is the answer's size.
      settle(false, e && e.name === 'SyntaxError'
        ? { message: 'The tool result is not valid JSON', status: 502, code: 'upstream_error', reason: 'upstream_failed' }
        : { message: 'the tool answer does not fit in the sandbox: ' + StringCtor(e && e.message), status: 502, code: 'upstream_error', reason: 'upstream_answer_too_large' });
      return;
    }
  }
  settle(ok, value);
};
const callError = (e) => {
  const err = new ErrorCtor(StringCtor(e.message));
  err.status = e.status;
  err.code = e.code;
  err.reason = e.reason;
  return err;
};
// True when v nests arrays and plain objects more than room levels deep. Each object is walked
// again only with more room than before, so shared sub-objects cannot make it exponential.
const deeper = (v, room, seen) => {
  if (v === null || typeof v !== 'object') return false;
  if (!isArray(v) && getProto(v) !== objectProto && getProto(v) !== null) return false;
  if (room <= 0) return true;
  const before = mapGet(seen, v);
  if (before !== undefined && before >= room) return false;
  mapSet(seen, v, room);
  const ks = keysOf(v);
  for (let i = 0; i < ks.length; i++) if (deeper(v[ks[i]], room - 1, seen)) return true;
  return false;
};
const call = (kind, args) => new PromiseCtor((resolve, reject) => {
  // Structured clone recurses too: a deep value would fail with a bare stack overflow.
  if (deeper(args, maxDepth + 1, new MapCtor())) {
    const err = new ErrorCtor((kind === 'invoke' ? 'invoke: the parameters are' : 'cyrnel.discover: the query is') +
      ' nested too deeply (at most ' + maxDepth + ' levels of arrays and objects)');
    err.status = 400;
    err.code = 'invalid_request';
    err.reason = kind === 'invoke' ? 'invalid_parameters' : 'invalid_request';
    throw err;
  }
  // The host gets a JSON tree: structured clone would keep shared references, and a small DAG
  // of them expands exponentially wherever the host walks it (validation, serialising a body).
  // Expanding here costs the sandbox's own time and memory only.
  send(kind, parse(stringify(args)), (ok, value) => (ok ? resolve(value) : reject(callError(value))));
});
`;

/**
 * `cyrnel.output`: copies a plain JSON object (naming the path of anything that is not JSON), then
 * hands its entries to the host, which checks the output cap.
 */
const OUTPUT = `const describe = (v) => {
  if (v === undefined) return 'undefined';
  if (typeof v !== 'object') return typeof v;
  const p = getProto(v);
  return p && p.constructor && typeof p.constructor.name === 'string' ? 'a ' + p.constructor.name : 'an object';
};
const plain = (v, path, seen, depth) => {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (isFinite(v)) return v;
    throw new TypeErrorCtor('cyrnel.output: ' + path + ' is ' + v + '; only finite numbers are JSON');
  }
  if (typeof v === 'object') {
    if (indexOf(seen, v) !== -1) throw new TypeErrorCtor('cyrnel.output: ' + path + ' is a circular reference');
    if (depth > maxDepth) {
      throw new TypeErrorCtor('cyrnel.output: ' + slice(path, 0, 200) + ' is nested too deeply: the output allows at most ' +
        maxDepth + ' levels of arrays and objects, the output object included');
    }
    push(seen, v);
    let copy;
    if (isArray(v)) {
      copy = [];
      for (let i = 0; i < v.length; i++) copy[i] = plain(v[i], path + '[' + i + ']', seen, depth + 1);
    } else {
      const p = getProto(v);
      if (p !== objectProto && p !== null) {
        throw new TypeErrorCtor('cyrnel.output: ' + path + ' is ' + describe(v) + '; only plain objects, arrays, strings, finite numbers, booleans and null can be output');
      }
      copy = {};
      const ks = keysOf(v);
      for (let i = 0; i < ks.length; i++) {
        const item = v[ks[i]];
        if (item !== undefined) copy[ks[i]] = plain(item, path + '.' + ks[i], seen, depth + 1);
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
  const copy = plain(obj, 'output', [], 1);
  const ks = keysOf(copy);
  const entries = [];
  let bound = 0;
  for (let i = 0; i < ks.length; i++) {
    const json = stringify(copy[ks[i]]);
    entries[i] = [ks[i], json];
    bound += 6 * ks[i].length + 3 * json.length + 4;
  }
  if (post('output', entries, bound)) return;
  const problem = syncCall('output', entries);
  if (problem) throw new ErrorCtor(problem);
};

`;

/** `console`: formats values as log lines and writes them through the host, which caps them. */
const CONSOLE = String.raw`// Compact JSON, String(v) where JSON cannot represent the value (NaN, Infinity, an Error
// that would print as {}, undefined, bigint); values nested inside JSON stay JSON.
const format = (v) => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return StringCtor(v);
  try {
    if (v instanceof ErrorCtor) return apply(errorToString, v, []);
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
  if (post(stream, line + '\n', 3 * (line.length + 1))) return;
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

`;

/** `setTimeout`/`clearTimeout` on host timers, counted with the calls toward the pending limit. */
const TIMERS = `const setTimeoutFn = (fn, ms, ...args) => {
  if (typeof fn !== 'function') throw new TypeErrorCtor('setTimeout expects a function');
  const id = send('sleep', [+ms || 0], (ok, value) => {
    delete timerIds[id];
    if (!ok) {
      write('stderr', ['setTimeout callback dropped:', StringCtor(value.message)]);
      return;
    }
    try { apply(fn, undefined, args); } catch (err) { write('stderr', ['Uncaught error in setTimeout callback:', err]); }
  });
  timerIds[id] = true;
  return id;
};
// Clearing forgets the callback here and frees the host timer, so it stops counting toward the limit.
const clearTimeoutFn = (id) => {
  if (typeof id !== 'number' || timerIds[id] !== true) return;
  delete timerIds[id];
  delete waiting[id];
  outstanding--;
  syncCall('clearTimer', id);
};
`;

/**
 * The frozen `cyrnel` global and the other fixed globals, `__cyrnelMain` (marks the program
 * finished) and the `[deliver, probe]` the script evaluates to.
 */
const GLOBALS = `const toolsOf = (serviceId, connection) => new ProxyCtor(freeze({ __proto__: null }), { __proto__: null,
  get: (_t, toolId) => typeof toolId !== 'string' ? undefined : freeze({ __proto__: null,
    invoke: (params) => call('invoke', connection === undefined
      ? [serviceId, toolId, params === undefined ? {} : params]
      : [serviceId, toolId, params === undefined ? {} : params, connection]) }) });
// A service's tools with its process's connection, or (connection(name)) with a named one the host checks.
const serviceOf = (serviceId) => freeze({ __proto__: null, tools: toolsOf(serviceId, undefined),
  connection: (name) => freeze({ __proto__: null, tools: toolsOf(serviceId, StringCtor(name)) }) });
const services = new ProxyCtor(freeze({ __proto__: null }), { __proto__: null,
  get: (_t, serviceId) => typeof serviceId !== 'string' ? undefined : serviceOf(serviceId) });
const discover = freeze({
  services: (query) => call('discoverServices', [query === undefined ? {} : query]),
  tools: (query) => call('discoverTools', [query === undefined ? {} : query]),
  tool: (serviceId, toolId) => call('describeTool', [serviceId, toolId]),
  types: (selection) => call('discoverTypes', [selection === undefined ? {} : selection]),
});
// The call by name, beside the proxy (for ids chosen at run time): the same host call, gate and errors.
const invoke = (serviceId, toolId, params) => call('invoke', [serviceId, toolId, params === undefined ? {} : params]);
const cyrnel = freeze({ output, services, invoke, discover, console: consoleObject });
const fixed = (value) => ({ value, writable: false, enumerable: false, configurable: false });
O.defineProperty(g, 'cyrnel', fixed(cyrnel));
O.defineProperty(g, 'console', fixed(consoleObject));
O.defineProperty(g, 'setTimeout', fixed(setTimeoutFn));
O.defineProperty(g, 'clearTimeout', fixed(clearTimeoutFn));
// The wrapper (transpile.ts) calls this once, before any user code runs; it removes itself.
// However the program patches promises, the host only learns that it ended after finished is set.
const main = async (fn) => {
  delete g.__cyrnelMain;
  try {
    await apply(fn, undefined, []);
  } finally {
    finished = true;
  }
};
O.defineProperty(g, '__cyrnelMain', { value: main, writable: false, enumerable: false, configurable: true });
const probe = () => (finished ? 0 : outstanding > 0 ? 1 : 2);
const sent = () => posted;
return [deliver, probe, begin, sent];
})();`;
