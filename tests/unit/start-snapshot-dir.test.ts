/** Where `recode` keeps start snapshots (start-snapshot.ts), and how a user turns them off. */
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultSnapshotDir } from "../../src/python/start-snapshot";

describe("defaultSnapshotDir", () => {
  it("is the user's cache folder by default, XDG_CACHE_HOME first", () => {
    expect(defaultSnapshotDir({})).toBe(join(homedir(), ".cache", "recode", "start-snapshots"));
    expect(defaultSnapshotDir({ XDG_CACHE_HOME: "/c" })).toBe("/c/recode/start-snapshots");
  });

  it("RECODE_START_SNAPSHOTS names another folder, or turns them off", () => {
    expect(defaultSnapshotDir({ RECODE_START_SNAPSHOTS: "/tmp/snaps", XDG_CACHE_HOME: "/c" })).toBe("/tmp/snaps");
    for (const off of ["off", "0", "false", "NO"]) expect(defaultSnapshotDir({ RECODE_START_SNAPSHOTS: off })).toBe(false);
  });
});
