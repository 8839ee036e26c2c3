/** Per-turn Recall@k curves (RECODE-H "Metrics": per-turn curve), one line per feedback level, as SVG. */
import type { MetricsRow } from "../../core/metrics";

const COLORS = ["#6b7280", "#2563eb", "#059669", "#d97706", "#dc2626"];
const W = 360;
const H = 200;
const PAD = { l: 38, r: 12, t: 12, b: 30 };

/** A line chart of Recall@k (k = 1..n, in %) for the rows of one model x setting group. */
export function RecallChart({ rows, title }: { rows: MetricsRow[]; title: string }) {
  const n = Math.max(1, ...rows.map((r) => r.curve.length));
  const x = (k: number) => PAD.l + (n === 1 ? 0 : ((k - 1) / (n - 1)) * (W - PAD.l - PAD.r));
  const y = (v: number) => PAD.t + (1 - v) * (H - PAD.t - PAD.b);
  const ticks = n <= 10 ? Array.from({ length: n }, (_, i) => i + 1) : [1, Math.ceil(n / 2), n];
  return (
    <figure className="recall-chart" data-testid="recall-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Recall@k per turn, ${title}`}>
        {[0, 0.25, 0.5, 0.75, 1].map((v) => (
          <g key={v}>
            <line x1={PAD.l} x2={W - PAD.r} y1={y(v)} y2={y(v)} stroke="#e5e7eb" />
            <text x={PAD.l - 6} y={y(v) + 4} textAnchor="end" fontSize="10" fill="#6b7280">
              {v * 100}
            </text>
          </g>
        ))}
        {ticks.map((k) => (
          <text key={k} x={x(k)} y={H - PAD.b + 14} textAnchor="middle" fontSize="10" fill="#6b7280">
            {k}
          </text>
        ))}
        <text x={(W + PAD.l) / 2} y={H - 4} textAnchor="middle" fontSize="10" fill="#374151">
          turns k
        </text>
        {rows.map((r) => (
          <g key={r.level}>
            <polyline
              fill="none"
              stroke={COLORS[r.level]}
              strokeWidth={2 + (4 - r.level) * 1.2}
              strokeOpacity={0.85}
              points={r.curve.map((v, i) => `${x(i + 1)},${y(v)}`).join(" ")}
            />
            {r.curve.map((v, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: one point per turn
              <circle key={i} cx={x(i + 1)} cy={y(v)} r="2.5" fill={COLORS[r.level]}>
                <title>{`L${r.level}, Recall@${i + 1}: ${(v * 100).toFixed(1)}%`}</title>
              </circle>
            ))}
          </g>
        ))}
      </svg>
      <figcaption>
        {title}:{" "}
        {rows.map((r) => (
          <span key={r.level} className="legend-item">
            <span className="swatch" style={{ background: COLORS[r.level] }} />L{r.level}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
