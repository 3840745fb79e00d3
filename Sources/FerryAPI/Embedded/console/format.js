// Numbers for people: sizes in binary units, rates, durations, ages.

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function bytes(count) {
  if (count === null || count === undefined) return '?';
  let value = Number(count);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function rate(perSecond) {
  return perSecond ? `${bytes(perSecond)}/s` : '';
}

export function duration(seconds) {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '';
  const whole = Math.max(0, Math.round(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/** Seconds left at the current rate, when both the size and a rate are known. */
export function eta(progress) {
  const {bytes_done: done, bytes_expected: expected, rate: perSecond} = progress ?? {};
  if (progress?.eta_seconds !== undefined && progress.eta_seconds !== null) return progress.eta_seconds;
  if (!expected || !perSecond) return null;
  return Math.max(0, (expected - done) / perSecond);
}

export function age(timestamp, now = Date.now()) {
  const seconds = Math.max(0, (now - Date.parse(timestamp)) / 1000);
  if (seconds < 60) return `${Math.floor(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}

export function time(timestamp) {
  return timestamp ? new Date(timestamp).toLocaleString() : '';
}
