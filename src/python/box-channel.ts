/**
 * The channel between `recode` and a process it starts in a box (node-box.ts,
 * coverage-runner.ts): file descriptor 3 of the boxed process, a socket pair,
 * carrying frames of a 4-byte big-endian length and that many bytes of V8's
 * structured-clone serialization (a start snapshot is tens of megabytes of
 * bytes). Node's own IPC channel is not used: it throws a malformed frame at
 * the host as an uncaught exception, so a box whose JavaScript was taken over
 * could end `recode` itself. Here a frame that does not parse is reported
 * (`onBad`), and the host ends the box.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { deserialize, serialize } from "node:v8";

/** The largest frame accepted (bytes); a longer one is malformed. */
export const MAX_FRAME_BYTES = 1 << 30;

/** Bytes that arrived but are not yet a whole frame. */
class Pending {
  private chunks: Buffer[] = [];
  length = 0;

  push(b: Buffer): void {
    this.chunks.push(b);
    this.length += b.length;
  }

  /** The first `n` bytes (the caller checked that they are there), removed. */
  take(n: number): Buffer {
    const first = this.chunks[0] as Buffer;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let at = 0;
      while (at < n) {
        const c = this.chunks[0] as Buffer;
        const k = Math.min(c.length, n - at);
        c.copy(out, at, 0, k);
        at += k;
        if (k === c.length) this.chunks.shift();
        else this.chunks[0] = c.subarray(k);
      }
    }
    this.length -= n;
    return out;
  }
}

/** Write one message as a frame. */
export function writeFrame(out: Writable, msg: unknown): void {
  const body = serialize(msg);
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(body.length, 0);
  // One write of both parts (a frame is most often a few event lines: one system call, not two).
  out.cork();
  out.write(head);
  out.write(body);
  out.uncork();
}

/**
 * Read frames from `input`: `onMessage` for each message, in order; at the first frame that is too long
 * or does not deserialize, `onBad` with why, once, and nothing after it.
 */
export function readFrames(input: Readable, onMessage: (msg: unknown) => void, onBad: (why: string) => void): void {
  const pending = new Pending();
  let need = -1;
  let bad = false;
  input.on("data", (d: Buffer) => {
    if (bad) return;
    pending.push(d);
    for (;;) {
      if (need < 0) {
        if (pending.length < 4) return;
        need = pending.take(4).readUInt32BE(0);
        if (need > MAX_FRAME_BYTES) {
          bad = true;
          onBad(`a frame of ${need} bytes (at most ${MAX_FRAME_BYTES})`);
          return;
        }
      }
      if (pending.length < need) return;
      const body = pending.take(need);
      need = -1;
      let msg: unknown;
      try {
        msg = deserialize(body);
      } catch (e) {
        bad = true;
        onBad(`a frame that does not deserialize (${(e as Error).message})`);
        return;
      }
      onMessage(msg);
    }
  });
}

/** A boxed process and its channel, as the host sees them. */
export interface BoxedProcess {
  child: ChildProcess;
  /** Send a message; does nothing once the channel is closed. */
  send(msg: unknown): void;
  /** Whether the channel can still carry messages. */
  readonly open: boolean;
  /** Close the host's end of the channel. */
  close(): void;
  /** End the process and its group (a bubblewrap still setting up goes with it), close the channel, and let go of it. */
  end(): void;
}

/**
 * Start `command` with the channel on its descriptor 3, standard error piped, no environment, in its
 * own process group. Messages go to `onMessage`; a malformed frame to `onBad` (the caller ends the box).
 */
export function spawnBoxed(command: string, args: string[], onMessage: (msg: unknown) => void, onBad: (why: string) => void): BoxedProcess {
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe", "pipe"], env: {}, detached: true });
  const socket = child.stdio[3] as Socket;
  let open = true;
  socket.on("error", () => {
    open = false;
  });
  socket.on("close", () => {
    open = false;
  });
  readFrames(socket, onMessage, onBad);
  return {
    child,
    send: (msg) => {
      if (open) writeFrame(socket, msg);
    },
    get open() {
      return open;
    },
    close: () => {
      open = false;
      socket.destroy();
    },
    end: () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      open = false;
      socket.destroy();
      // Nothing of the process keeps the host's event loop alive.
      child.stderr?.destroy();
      child.unref();
    },
  };
}

/**
 * The boxed process's end of the channel (descriptor 3): `send` a message, `onMessage` for each one
 * from the host. When the host is gone (the channel closes) or sends a malformed frame, the process exits.
 */
export function hostChannel(onMessage: (msg: unknown) => void): { send(msg: unknown): void } {
  const socket = new Socket({ fd: 3, readable: true, writable: true });
  const gone = () => process.exit(0);
  socket.on("end", gone);
  socket.on("close", gone);
  socket.on("error", gone);
  readFrames(socket, onMessage, (why) => {
    process.stderr.write(`the host sent ${why}\n`);
    process.exit(70);
  });
  return { send: (msg) => writeFrame(socket, msg) };
}
