/** Benchmarks (filled in below). */
export async function runBench(_o: { runs: number; out: string; page: boolean; log: (s: string) => void }): Promise<void> {
  throw new Error("bench: not written yet");
}
