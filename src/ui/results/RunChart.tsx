/**
 * Per-turn Recall@k curves (RECODE-H "Metrics": the per-turn curve), drawn
 * with Chart.js: a legend that hides and shows curves, a tooltip that lists
 * every curve's value at the turn under the pointer, and a dash pattern and
 * point shape per feedback level, so that curves that coincide stay apart
 * (the tooltip lists each of them).
 */
import {
  CategoryScale,
  Chart,
  type ChartDataset,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  type PointStyle,
  Tooltip,
} from "chart.js";
import { useEffect, useRef } from "react";
import type { FeedbackLevel } from "../../core/feedback";
import { useObservable } from "../services";
import { resolvedTheme } from "../view-prefs";

Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale, Legend, Tooltip);

/** One curve: Recall@k for k = 1..values.length, each in 0..1. */
export interface RecallSeries {
  /** Legend text, e.g. `L2` or `gpt-4o-mini · L2`. */
  label: string;
  level: FeedbackLevel;
  /** Which run of the chart it belongs to (0 for the first); picks the colour when runs are compared. */
  run: number;
  values: number[];
}

/** A colour per level (one run) or per run (several). */
const LEVEL_COLORS = ["#6b7280", "#2563eb", "#059669", "#d97706", "#dc2626"];
const RUN_COLORS = ["#2563eb", "#dc2626", "#059669", "#7c3aed", "#d97706", "#0891b2"];
/** A dash pattern and a point shape per level: coinciding curves are still told apart. */
const DASHES: number[][] = [[], [8, 4], [2, 3], [10, 3, 2, 3], [14, 5]];
const POINTS: PointStyle[] = ["circle", "rect", "triangle", "rectRot", "crossRot"];

/** Groups (two or more) of series with the same values, by label, in series order. */
export function sameCurves(series: readonly RecallSeries[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const s of series) {
    const key = JSON.stringify(s.values);
    groups.set(key, [...(groups.get(key) ?? []), s.label]);
  }
  return [...groups.values()].filter((g) => g.length > 1);
}

function cssColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/**
 * A line chart of Recall@k in % against turns k = 1..n.
 * @param series the curves; `runs` > 1 colours them per run, else per level.
 * @param title what the curves are of, for the figure's caption and the chart's accessible name.
 */
export function RunChart({ series, runs, title }: { series: RecallSeries[]; runs: number; title: string }) {
  const canvas = useRef<HTMLCanvasElement | null>(null);
  const n = Math.max(1, ...series.map((s) => s.values.length));
  // Curves that coincide, named in the caption (the chart draws them nested, which a glance can miss).
  const same = sameCurves(series);
  // Redrawn when the theme changes: the axes take the page's colours.
  const theme = useObservable(resolvedTheme);
  useEffect(() => {
    if (!canvas.current) return;
    const dark = theme === "dark";
    const text = cssColor("--text", dark ? "#e6e9ef" : "#1d2330");
    const muted = cssColor("--muted", dark ? "#9aa3b2" : "#6b7280");
    const line = cssColor("--line", dark ? "#343b48" : "#dde1e7");
    const datasets: ChartDataset<"line", number[]>[] = series.map((s, i) => {
      const color = runs > 1 ? (RUN_COLORS[s.run % RUN_COLORS.length] as string) : (LEVEL_COLORS[s.level] as string);
      return {
        label: s.label,
        data: s.values.map((v) => v * 100),
        borderColor: color,
        backgroundColor: color,
        borderDash: DASHES[s.level],
        pointStyle: POINTS[s.level],
        // Chart.js draws the first curve on top: each later one is drawn wider and with larger points
        // underneath, so a curve that lies on another still shows at its edges.
        pointRadius: 3 + i * 1.5,
        pointHoverRadius: 5 + i * 1.5,
        borderWidth: 1.5 + i * 1.5,
      };
    });
    const chart = new Chart(canvas.current, {
      type: "line",
      data: { labels: Array.from({ length: n }, (_, k) => String(k + 1)), datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: "index", intersect: false },
        scales: {
          x: { title: { display: true, text: "turns k", color: text }, ticks: { color: muted }, grid: { color: line } },
          y: {
            min: 0,
            max: 100,
            title: { display: true, text: "Recall@k, %", color: text },
            ticks: { color: muted, stepSize: 25 },
            grid: { color: line },
          },
        },
        plugins: {
          legend: {
            position: "bottom",
            labels: {
              color: text,
              usePointStyle: true,
              boxWidth: 28,
              // The key's marks at one size: the curves' widths (each later one wider) would make them blots.
              generateLabels: (c) =>
                Chart.defaults.plugins.legend.labels.generateLabels(c).map((l) => ({ ...l, lineWidth: Math.min(l.lineWidth ?? 1, 2) })),
            },
          },
          tooltip: {
            usePointStyle: true,
            boxWidth: 8,
            boxHeight: 8,
            callbacks: {
              labelColor: (item) => {
                const color = String(item.dataset.borderColor);
                return { borderColor: color, backgroundColor: color, borderWidth: 1 };
              },
              labelPointStyle: (item) => ({
                pointStyle: (item.dataset as { pointStyle?: PointStyle }).pointStyle ?? "circle",
                rotation: 0,
              }),
              title: (items) => `within ${items[0]?.label ?? ""} ${items[0]?.label === "1" ? "turn" : "turns"}`,
              label: (item) => `${item.dataset.label}: Recall@${item.label} ${(item.parsed.y ?? 0).toFixed(1)}%`,
            },
          },
        },
      },
    });
    return () => chart.destroy();
  }, [series, runs, n, theme]);
  return (
    <figure className="recall-chart" data-testid="recall-chart" data-series={series.length} data-theme={theme}>
      <div className="recall-chart-box">
        <canvas ref={canvas} role="img" aria-label={`Recall@k per turn, ${title}`} />
      </div>
      <figcaption>
        Recall@k per turn: {title}
        {same.length > 0 && <span data-testid="same-curves"> · the same curve: {same.map((g) => g.join(" = ")).join("; ")}</span>}
      </figcaption>
    </figure>
  );
}
