/**
 * The seccomp filter of the bubblewrap boxes: the kernel's key management
 * calls (`add_key`, `request_key`, `keyctl`) fail with EPERM, as in Docker's
 * default profile. Namespaces do not cover keyrings: without the filter,
 * code in a box reads the session keyring of whoever started `recode`
 * (Kerberos tickets, keys stored with `keyctl`) and leaves keys in a user's
 * keyring for a later run to find. Everything else is allowed.
 *
 * The filter is classic BPF (`struct sock_filter`, 8 bytes per instruction,
 * little-endian: x86-64 and AArch64 with their 32-bit compatibility calls),
 * handed to bubblewrap's `--seccomp` on a descriptor of its own.
 */

/** Descriptor on which the boxes' spawners hand bubblewrap the filter (after stdin, stdout, stderr and the event channel). */
export const SECCOMP_FD = 4;

// struct seccomp_data: nr at 0, arch at 4.
const NR = 0;
const ARCH = 4;
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const AND_K = 0x54;
const RET_K = 0x06;
const ALLOW = 0x7fff0000;
const ERRNO_EPERM = 0x00050000 | 1;

/** Per audit architecture: add_key, request_key, keyctl; `mask` clears the x32 bit of x86-64 numbers. */
const KEY_CALLS: { arch: number; calls: number[]; mask?: number }[] = [
  { arch: 0xc000003e, calls: [248, 249, 250], mask: ~0x40000000 >>> 0 }, // x86-64 (and x32)
  { arch: 0x40000003, calls: [286, 287, 288] }, // i386 on x86-64
  { arch: 0xc00000b7, calls: [217, 218, 219] }, // AArch64
  { arch: 0x40000028, calls: [309, 310, 311] }, // 32-bit ARM on AArch64
];

type Insn = [code: number, jt: number, jf: number, k: number];

/** The filter's instructions. */
function program(): Insn[] {
  const out: Insn[] = [];
  // Jump targets are filled once the positions of "allow" and "deny" are known.
  const toDeny: number[] = [];
  const toNextArch: number[] = [];
  for (const { arch, calls, mask } of KEY_CALLS) {
    for (const at of toNextArch.splice(0)) (out[at] as Insn)[2] = out.length - at - 1;
    out.push([LD_W_ABS, 0, 0, ARCH]);
    toNextArch.push(out.length);
    out.push([JEQ_K, 0, 0, arch]);
    out.push([LD_W_ABS, 0, 0, NR]);
    if (mask !== undefined) out.push([AND_K, 0, 0, mask]);
    for (const nr of calls) {
      toDeny.push(out.length);
      out.push([JEQ_K, 0, 0, nr]);
    }
    out.push([RET_K, 0, 0, ALLOW]);
  }
  for (const at of toNextArch) (out[at] as Insn)[2] = out.length - at - 1;
  out.push([RET_K, 0, 0, ALLOW]);
  const deny = out.length;
  out.push([RET_K, 0, 0, ERRNO_EPERM]);
  for (const at of toDeny) (out[at] as Insn)[1] = deny - at - 1;
  return out;
}

/** The compiled filter, as bubblewrap's `--seccomp` reads it. */
export function seccompFilter(): Uint8Array {
  const insns = program();
  const bytes = new Uint8Array(insns.length * 8);
  const view = new DataView(bytes.buffer);
  insns.forEach(([code, jt, jf, k], i) => {
    if (jt > 255 || jf > 255) throw new RangeError("seccomp filter: a jump is too long");
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k, true);
  });
  return bytes;
}
