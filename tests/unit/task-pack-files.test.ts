import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { PACK_LIMITS } from "../../src/core/task-pack";
import { packFiles } from "../../src/ui/tasks/task-pack-import";

const enc = (s: string) => new TextEncoder().encode(s);

/** A zip whose central directory lists `copies` entries that all point at one stored entry claiming 1 byte. */
function lyingZip(copies: number, size: number): Uint8Array {
  const stored = zipSync({ "t/blob.bin": new Uint8Array(size) }, { level: 0 });
  const view = new DataView(stored.buffer);
  // Find the central directory header (signature 0x02014b50) and the end record (0x06054b50).
  let cd = -1;
  let end = -1;
  for (let i = stored.length - 22; i >= 0; i--) {
    if (end < 0 && view.getUint32(i, true) === 0x06054b50) end = i;
    if (view.getUint32(i, true) === 0x02014b50) {
      cd = i;
      break;
    }
  }
  const header = stored.slice(cd, end);
  const hv = new DataView(header.buffer);
  hv.setUint32(24, 1, true); // original size: 1 byte (it stores `size`)
  const parts = [stored.slice(0, cd)];
  for (let i = 0; i < copies; i++) parts.push(header);
  const record = stored.slice(end);
  const rv = new DataView(record.buffer);
  rv.setUint16(8, copies, true);
  rv.setUint16(10, copies, true);
  rv.setUint32(12, header.length * copies, true);
  rv.setUint32(16, cd, true);
  parts.push(record);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe("reading a dropped pack", () => {
  it("unpacks a zip under its name", async () => {
    const zip = zipSync({ "t/task.json": enc("{}"), "t/repo/a.py": enc("x = 1\n") });
    const { files, name } = await packFiles([new File([zip as Uint8Array<ArrayBuffer>], "week3.zip")]);
    expect(name).toBe("week3");
    expect(Object.keys(files).sort()).toEqual(["week3/t/repo/a.py", "week3/t/task.json"]);
  });

  it("refuses a stored entry that claims another size than it stores, before copying it (one blob listed many times)", async () => {
    const zip = lyingZip(20, 1024 * 1024);
    await expect(packFiles([new File([zip as Uint8Array<ArrayBuffer>], "lies.zip")])).rejects.toThrow(
      /lies\.zip: .* says it holds 1 bytes but stores 1048576; nothing was imported/,
    );
  });

  it("refuses a zip of more files than a pack may hold, and a file larger than a pack, unread", async () => {
    const many: Record<string, Uint8Array> = {};
    for (let i = 0; i <= PACK_LIMITS.files; i++) many[`t/f${i}.py`] = new Uint8Array(0);
    await expect(packFiles([new File([zipSync(many) as Uint8Array<ArrayBuffer>], "many.zip")])).rejects.toThrow(
      /many\.zip: it unpacks to more than/,
    );
    const huge = {
      size: PACK_LIMITS.packBytes + 1,
      name: "huge.zip",
      arrayBuffer: () => Promise.reject(new Error("read")),
    } as unknown as File;
    await expect(packFiles([huge])).rejects.toThrow(/huge\.zip: 64\.0 MB; a pack may hold at most 64\.0 MB/);
  });
});
