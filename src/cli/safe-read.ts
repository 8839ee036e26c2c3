/**
 * Reading a file that someone else made (a student's candidate file, a downloaded dataset's task file) without
 * following it anywhere: a regular file only, no symbolic link followed (to another student's file, a file of the
 * grader's, /proc), no read that waits (a pipe, /proc/kmsg), and at most a given size.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** A file that was not read, and why in a few words (`reason`: "no such file", "a symbolic link", ...). */
export class UnreadFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** Why an open or read failed, by the error's code, in a few words; the system's message for any other. */
const REASONS: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "it is a folder, not a file",
  EACCES: "permission denied",
  EPERM: "permission denied",
  // (O_NOFOLLOW: a link is not followed.)
  ELOOP: "it is a symbolic link",
  EAGAIN: "its read would wait (it is not a plain file)",
  ENAMETOOLONG: "its path is too long",
};

/**
 * The bytes of the regular file at `path`, at most `maxBytes` of them.
 * @throws UnreadFileError when it is missing, a symbolic link (not followed), a folder, a pipe, a socket or a
 *   device, larger than `maxBytes` (by its size or by what a read gives), or cannot be read (the reason says which).
 */
export function readRegularFile(path: string, maxBytes: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    // (A name that is not UTF-8 reaches Node with U+FFFD in place of its bytes, a name no file has.)
    if (code === "ENOENT" && path.includes("\uFFFD"))
      throw new UnreadFileError(path, "its name is not UTF-8 text, so it cannot be opened by name; rename the file");
    throw new UnreadFileError(path, REASONS[code] ?? (e as Error).message);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new UnreadFileError(path, REASONS.EISDIR as string);
    if (!st.isFile()) throw new UnreadFileError(path, "it is not a regular file (a pipe, a socket or a device)");
    const tooBig = new UnreadFileError(path, `it is larger than ${formatBytes(maxBytes)}`);
    if (st.size > maxBytes) throw tooBig;
    // Read to the end, but never past the cap (a file of /proc says size 0 and may give more).
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) throw tooBig;
    }
    return Buffer.concat(chunks, total);
  } catch (e) {
    if (e instanceof UnreadFileError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? "";
    throw new UnreadFileError(path, REASONS[code] ?? (e as Error).message);
  } finally {
    closeSync(fd);
  }
}

/** `2 MB`, `64 MB`, `512 KB`: a size limit as the messages say it. */
function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${n / 1024 / 1024} MB` : `${n / 1024} KB`;
}
