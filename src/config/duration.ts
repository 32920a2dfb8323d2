import ms from 'ms';

/**
 * Parse a human duration ("500ms", "30s", "2m", "1h", "1.5h") into ms.
 * A bare number is refused: "30" could mean seconds or milliseconds, and a
 * guess there silently changes a timeout by a factor of a thousand.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (!/^\d+(\.\d+)?\s*[a-zA-Z]+$/.test(trimmed)) {
    throw new Error(`"${text}" is not a duration (use e.g. 500ms, 30s, 2m, 1h)`);
  }
  const value = ms(trimmed as ms.StringValue);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new Error(`"${text}" is not a duration (use e.g. 500ms, 30s, 2m, 1h)`);
  }
  return Math.round(value);
}

export function formatDuration(msValue: number): string {
  if (msValue < 1000) return `${Math.round(msValue)}ms`;
  const s = msValue / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(Math.floor(s % 60)).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${h % 24}h`;
}
