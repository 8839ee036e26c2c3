/**
 * Start snapshots without their empty pages: about half of Pyodide's memory
 * with the harness loaded is zero pages, which need not be stored, read back
 * or posted between the page and its box. The packed form is the snapshot's
 * length, a bitmap of its 4 KiB pages that hold anything, and those pages.
 */

const MAGIC = 0x5a534352; // "RCSZ", little-endian
const PAGE = 4096;
const HEADER = 12;

/** Whether `page` bytes of `words` (a 64-bit view) from word `at` are all zero. */
function zeroPage(words: BigUint64Array, at: number, count: number): boolean {
  for (let i = at; i < at + count; i++) if (words[i] !== 0n) return false;
  return true;
}

/** Whether page `p` is stored, by `bitmap`. */
function stored(bitmap: Uint8Array, p: number): boolean {
  return ((bitmap[p >> 3] ?? 0) & (1 << (p & 7))) !== 0;
}

/**
 * The packed form of a start snapshot (`bytes`: Pyodide's memory, as `makeMemorySnapshot` gives it).
 * @returns a new array: header (magic, length in bytes, page size), the bitmap of stored pages, the pages.
 */
export function packSnapshot(bytes: Uint8Array): Uint8Array {
  const pages = Math.ceil(bytes.length / PAGE);
  const bitmap = new Uint8Array(Math.ceil(pages / 8));
  const whole = Math.floor(bytes.length / PAGE);
  // A 64-bit view needs an aligned start: copy the rare unaligned input once.
  const src = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const words = new BigUint64Array(src.buffer, src.byteOffset, whole * (PAGE / 8));
  let kept = 0;
  for (let p = 0; p < pages; p++) {
    const full = p < whole;
    const zero = full ? zeroPage(words, p * (PAGE / 8), PAGE / 8) : src.subarray(p * PAGE).every((b) => b === 0);
    if (!zero) {
      bitmap[p >> 3] = (bitmap[p >> 3] ?? 0) | (1 << (p & 7));
      kept += full ? PAGE : src.length - p * PAGE;
    }
  }
  const out = new Uint8Array(HEADER + bitmap.length + kept);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, src.length, true);
  view.setUint32(8, PAGE, true);
  out.set(bitmap, HEADER);
  let at = HEADER + bitmap.length;
  for (let p = 0; p < pages; p++) {
    if (!stored(bitmap, p)) continue;
    const page = src.subarray(p * PAGE, Math.min((p + 1) * PAGE, src.length));
    out.set(page, at);
    at += page.length;
  }
  return out;
}

/**
 * The snapshot `packed` holds, as {@link packSnapshot} wrote it; bytes that are not in that form (a snapshot
 * kept before packing) are given back as they are.
 * @throws RangeError when the packed form is cut short or its sizes do not add up.
 */
export function unpackSnapshot(packed: Uint8Array): Uint8Array {
  if (packed.length < HEADER) return packed;
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  if (view.getUint32(0, true) !== MAGIC) return packed;
  const length = view.getUint32(4, true);
  const page = view.getUint32(8, true);
  if (page !== PAGE) throw new RangeError(`start snapshot: page size ${page}, expected ${PAGE}`);
  const pages = Math.ceil(length / PAGE);
  const bitmap = packed.subarray(HEADER, HEADER + Math.ceil(pages / 8));
  if (bitmap.length < Math.ceil(pages / 8)) throw new RangeError("start snapshot: cut short");
  const out = new Uint8Array(length);
  let at = HEADER + bitmap.length;
  for (let p = 0; p < pages; p++) {
    if (!stored(bitmap, p)) continue;
    const size = Math.min(PAGE, length - p * PAGE);
    if (at + size > packed.length) throw new RangeError("start snapshot: cut short");
    out.set(packed.subarray(at, at + size), p * PAGE);
    at += size;
  }
  if (at !== packed.length) throw new RangeError("start snapshot: bytes left over");
  return out;
}
