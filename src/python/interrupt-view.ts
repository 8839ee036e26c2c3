/**
 * The interrupt buffer as Pyodide's interpreter reads it, without losing an interrupt.
 *
 * CPython's Emscripten build polls the buffer handed to `pyodide.setInterruptBuffer` every 50 checks of its
 * evaluation loop, as `result = buffer[0]; buffer[0] = 0; return result`. The read and the clear are two steps:
 * an interrupt the host stores between them (from another thread, or another process through the box's relay)
 * is written over with 0 and never raised. In a loop that does nothing but jump back (`while True: pass`) the
 * interpreter polls so often that about one interrupt in 25 was lost that way, and the run was ended by
 * replacing the instance ("did not respond to the interrupt") instead of by the interrupt.
 *
 * The view hands the interpreter the same two steps made safe: a read is an atomic load, and the clear that
 * follows only clears the value that read saw (an atomic compare-and-exchange), so a store that came between
 * them stays for the next poll.
 */

/** What `pyodide.setInterruptBuffer` takes: an object indexed like a one-element `Uint8Array`. */
export interface InterruptView {
  0: number;
}

/**
 * A view of `buffer` (one byte, a signal number: 2 is SIGINT, 0 none) for `pyodide.setInterruptBuffer`.
 * Reading index 0 loads the byte atomically; writing index 0 stores the value only when the byte still holds
 * what the last read of the view saw, and leaves a value stored since then in place.
 * The host and the worker keep writing `buffer` itself (`Atomics.store`).
 */
export function interruptView(buffer: Uint8Array): InterruptView {
  let seen = 0;
  return Object.freeze({
    get 0(): number {
      seen = Atomics.load(buffer, 0);
      return seen;
    },
    set 0(value: number) {
      Atomics.compareExchange(buffer, 0, seen, value);
    },
  });
}
