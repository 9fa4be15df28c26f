// A small accessible bar chart: an SVG the assistive technology reads as one image with a summary
// (role="img", aria-label); the numbers themselves go in a table beside it. No chart library.
export type Bar = Readonly<{ label: string; value: number; highlight?: boolean }>;

const rowHeight = 26;
const labelWidth = 130;
const valueWidth = 60;
const width = 560;

export function BarChart({ bars, summary }: { bars: readonly Bar[]; summary: string }) {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const span = width - labelWidth - valueWidth;
  const height = Math.max(1, bars.length) * rowHeight + 4;
  return (
    <svg
      className="chart audit-chart"
      role="img"
      aria-label={summary}
      viewBox={`0 0 ${String(width)} ${String(height)}`}
      width={width}
      height={height}
    >
      {bars.map((bar, i) => {
        const y = i * rowHeight + 2;
        const w = bar.value === 0 ? 0 : Math.max(2, (bar.value / max) * span);
        return (
          <g key={`${bar.label}-${String(i)}`}>
            <text x={labelWidth - 8} y={y + rowHeight / 2 + 4} textAnchor="end" className="audit-chart-label">
              {bar.label}
            </text>
            <rect
              x={labelWidth}
              y={y + 3}
              width={w}
              height={rowHeight - 6}
              className={bar.highlight ? 'audit-bar-current' : undefined}
            />
            <text x={labelWidth + w + 6} y={y + rowHeight / 2 + 4} className="audit-chart-label">
              {bar.value}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
