/**
 * The worker-side half of the synchronous platform-call bridge, shared by the JavaScript and the
 * Python worker programs (both interpolate it): a call is posted to the main thread, then the
 * worker waits on the shared counter until its reply arrives or the script's wall time runs out.
 * Expects in scope: `parentPort`, `receiveMessageOnPort`, `replies`, `signal` and `perf`
 * (`performance`, kept by the Python worker before it deletes the capability globals).
 */
export const HOST_CALL_SOURCE = String.raw`
function stopped() {
  return 'e' + JSON.stringify({ message: 'the script was stopped' });
}

/** One platform call: posted to the main thread, waited for on the shared counter. */
function callHost(run, method, args) {
  if (run === null || run.stop !== null) return stopped();
  const id = ++run.seq;
  run.calls++;
  const t = perf.now();
  let seen = Atomics.load(signal, 0);
  parentPort.postMessage({ type: 'call', run: run.job.run, call: id, method, args });
  try {
    for (;;) {
      let received;
      while ((received = receiveMessageOnPort(replies)) !== undefined) {
        if (received.message.call === id) return received.message.reply;
      }
      const remaining = run.job.limits.wallTimeMs - (perf.now() - run.begin);
      if (remaining <= 0 || Atomics.wait(signal, 0, seen, remaining) === 'timed-out') {
        run.stop = 'wall-time';
        return stopped();
      }
      seen = Atomics.load(signal, 0);
    }
  } finally {
    run.waited += perf.now() - t;
  }
}
`;
