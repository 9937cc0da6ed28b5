/** The texts of timers, deadlines and backoffs: durations, and templates computed when due. */

/**
 * A duration (`90s`, `15m`, `2h`, `1d`, `500ms`, ISO-8601 `PT1H30M`, `P2D`, `P1W`) in ms, or undefined
 * when the text is none.
 */
const UNIT_MS = new Map([
  ['ms', 1],
  ['s', 1000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
]);

export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  const simple = /^(\d{1,12})\s*(ms|s|m|h|d)$/.exec(t);
  if (simple) {
    const unit = UNIT_MS.get(simple[2] ?? '');
    if (unit !== undefined) return Number(simple[1]) * unit;
  }
  return isoDurationMs(t);
}

/** P[nD]T[nH][nM][nS] and PnW: ISO 8601 durations of a fixed length (no months or years). */
const ISO_DURATION =
  /^P(?:(\d{1,6})W|(?:(\d{1,6})D)?(?:T(?:(\d{1,8})H)?(?:(\d{1,10})M)?(?:(\d{1,12}(?:\.\d{1,3})?)S)?)?)$/;

/** Milliseconds of an ISO 8601 duration of fixed length, or undefined. */
export function isoDurationMs(text: string): number | undefined {
  const m = ISO_DURATION.exec(text);
  if (!m || text === 'P' || text.endsWith('T')) return undefined;
  const [, w, d = '0', h = '0', min = '0', s = '0'] = m;
  if (w !== undefined) return Number(w) * 7 * 86_400_000;
  return Math.round(((Number(d) * 24 + Number(h)) * 60 + Number(min)) * 60_000 + Number(s) * 1000);
}

/** A template (it contains `${` or `<#`) is computed when the task opens; any other text must be a duration. */
export function isTemplateText(text: string): boolean {
  return text.includes('${') || text.includes('<#');
}
