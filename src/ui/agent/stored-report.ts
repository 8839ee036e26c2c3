/**
 * The report of the trajectories stored in the page (the results page; not
 * part of the page's first load).
 */
import { buildReport, type Report } from "../../core/report";
import type { TrajectoryState } from "../services";

/**
 * The results page's report: every stored trajectory through
 * {@link buildReport}, the code `recode report` uses too, so the same
 * trajectories give the same table. Records the store set aside are listed as
 * unreadable. Each trajectory's source is the file it was imported from, or
 * its store key.
 * @param n n of Recall@n; absent: the shared default (docs/metrics.md).
 * @throws Error when `n` is not a whole number >= 1.
 */
export function storedReport(stored: Pick<TrajectoryState, "records" | "problems">, n?: number): Report {
  const report = buildReport(
    stored.records.map((r) => ({ source: r.fileName ?? r.key, trajectory: r.trajectory })),
    n,
  );
  return { ...report, unreadable: [...stored.problems, ...report.unreadable] };
}
