/**
 * The cron schedules of NodePool disruption budgets, read as Karpenter reads them: Karpenter
 * parses `spec.disruption.budgets[].schedule` with robfig/cron v3's `ParseStandard`, prefixed
 * `TZ=UTC` (core `pkg/apis/v1/nodepool.go`, `Budget.IsActive`). So:
 *
 * - five fields, minute hour day-of-month month day-of-week, separated by whitespace; or one of
 *   the macros `@yearly` `@annually` `@monthly` `@weekly` `@daily` `@midnight` `@hourly`
 *   (lower case, as robfig compares them; `@every` is not accepted by the NodePool CRD);
 * - in a field: `*` or `?`, lists `a,b`, ranges `a-b`, steps `*` `/n`, `a-b/n` and `a/n` (= `a-max/n`),
 *   month names JAN..DEC and weekday names SUN..SAT in any case, also at either end of a range;
 * - weekdays 0..6 only: robfig rejects `7` ("end of range (7) above maximum (6)"), so a schedule
 *   with a 7 is invalid for Karpenter, which then fails closed (see disruption-budgets.ts);
 * - day-of-month and day-of-week: when both are restricted (neither starts with `*`/`?`, or a
 *   `*` with a step above 1), a day matches when either matches (cron's OR rule), else both must;
 * - times in UTC, minute resolution: `next(t)` is the first matching minute strictly after `t`
 *   (robfig's `Next`), searched at most five years ahead like robfig, which then gives up.
 *
 * Searches skip whole months, days and hours that cannot match, so a search costs at most a few
 * thousand steps even for a schedule that matches once in four years.
 */

const MINUTE_MS = 60_000;

interface FieldBounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MINUTES: FieldBounds = { min: 0, max: 59 };
const HOURS: FieldBounds = { min: 0, max: 23 };
const DAYS_OF_MONTH: FieldBounds = { min: 1, max: 31 };
const MONTHS: FieldBounds = {
  min: 1,
  max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const WEEKDAYS: FieldBounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

/** A parsed schedule: which values of each field match. */
export interface CronSchedule {
  minutes: readonly boolean[];
  hours: readonly boolean[];
  daysOfMonth: readonly boolean[];
  months: readonly boolean[];
  weekdays: readonly boolean[];
  /** Whether day-of-month / day-of-week were written as `*` or `?` (without a step above 1). */
  daysOfMonthStar: boolean;
  weekdaysStar: boolean;
}

export type CronParse = { ok: true; schedule: CronSchedule } | { ok: false; error: string };

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface Field {
  values: boolean[];
  star: boolean;
}

class CronError extends Error {}

function number(text: string, bounds: FieldBounds): number {
  const named = bounds.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^\d+$/.test(text)) throw new CronError(`failed to parse int from ${text}`);
  return Number(text);
}

function field(text: string, bounds: FieldBounds): Field {
  const values = new Array<boolean>(bounds.max + 1).fill(false);
  let star = false;
  for (const part of text.split(',')) {
    const rangeAndStep = part.split('/');
    if (rangeAndStep.length > 2) throw new CronError(`too many slashes: ${part}`);
    const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
    let start: number;
    let end: number;
    let partStar = false;
    if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
      start = bounds.min;
      end = bounds.max;
      partStar = true;
    } else {
      if (lowAndHigh.length > 2) throw new CronError(`too many hyphens: ${part}`);
      start = number(lowAndHigh[0] ?? '', bounds);
      end = lowAndHigh.length === 2 ? number(lowAndHigh[1] ?? '', bounds) : start;
    }
    let step = 1;
    if (rangeAndStep.length === 2) {
      const stepText = rangeAndStep[1] ?? '';
      if (!/^\d+$/.test(stepText)) throw new CronError(`failed to parse int from ${stepText}`);
      step = Number(stepText);
      // robfig: "N/step" means "N-max/step".
      if (lowAndHigh.length === 1) end = bounds.max;
      if (step > 1) partStar = false;
    }
    if (start < bounds.min) throw new CronError(`beginning of range (${start}) below minimum (${bounds.min}): ${part}`);
    if (end > bounds.max) throw new CronError(`end of range (${end}) above maximum (${bounds.max}): ${part}`);
    if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${part}`);
    if (step === 0) throw new CronError(`step of range should be a positive number: ${part}`);
    for (let v = start; v <= end; v += step) values[v] = true;
    star ||= partStar;
  }
  return { values, star };
}

/** A budget's `schedule` as Karpenter's cron library reads it, or why it cannot. */
export function parseCron(spec: string): CronParse {
  const trimmed = spec.trim();
  if (trimmed === '') return { ok: false, error: 'expected exactly 5 fields, found 0: []' };
  let text = trimmed;
  if (text.startsWith('@')) {
    const expanded = MACROS[text];
    if (expanded === undefined) return { ok: false, error: `unrecognized descriptor: ${text}` };
    text = expanded;
  }
  const fields = text.split(/\s+/);
  if (fields.length !== 5)
    return { ok: false, error: `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]` };
  try {
    const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
    const dayOfMonth = field(dom, DAYS_OF_MONTH);
    const weekday = field(dow, WEEKDAYS);
    return {
      ok: true,
      schedule: {
        minutes: field(minute, MINUTES).values,
        hours: field(hour, HOURS).values,
        daysOfMonth: dayOfMonth.values,
        months: field(month, MONTHS).values,
        weekdays: weekday.values,
        daysOfMonthStar: dayOfMonth.star,
        weekdaysStar: weekday.star,
      },
    };
  } catch (error) {
    if (error instanceof CronError) return { ok: false, error: error.message };
    throw error;
  }
}

function dayMatches(schedule: CronSchedule, date: Date): boolean {
  const dom = schedule.daysOfMonth[date.getUTCDate()] === true;
  const dow = schedule.weekdays[date.getUTCDay()] === true;
  return schedule.daysOfMonthStar || schedule.weekdaysStar ? dom && dow : dom || dow;
}

const SEARCH_YEARS = 5;

/**
 * The first minute the schedule fires strictly after `afterMs` (robfig's `Next`), or undefined
 * when it fires in none of the next five years (robfig then returns the zero time).
 */
export function nextFire(schedule: CronSchedule, afterMs: number): number | undefined {
  let t = Math.floor(afterMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const yearLimit = new Date(t).getUTCFullYear() + SEARCH_YEARS;
  for (;;) {
    const d = new Date(t);
    const [y, mo, day, h, mi] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()];
    if (y > yearLimit) return undefined;
    if (schedule.months[mo + 1] !== true) t = Date.UTC(y, mo + 1, 1);
    else if (!dayMatches(schedule, d)) t = Date.UTC(y, mo, day + 1);
    else if (schedule.hours[h] !== true) t = Date.UTC(y, mo, day, h + 1);
    else if (schedule.minutes[mi] !== true) {
      const next = schedule.minutes.indexOf(true, mi + 1);
      t = next === -1 ? Date.UTC(y, mo, day, h + 1) : Date.UTC(y, mo, day, h, next);
    } else return t;
  }
}

/**
 * The last minute the schedule fires at or before `atOrBeforeMs`, or undefined when it fired in
 * none of the five years before.
 */
export function previousFire(schedule: CronSchedule, atOrBeforeMs: number): number | undefined {
  let t = Math.floor(atOrBeforeMs / MINUTE_MS) * MINUTE_MS;
  const yearLimit = new Date(t).getUTCFullYear() - SEARCH_YEARS;
  for (;;) {
    const d = new Date(t);
    const [y, mo, day, h, mi] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()];
    if (y < yearLimit) return undefined;
    if (schedule.months[mo + 1] !== true) t = Date.UTC(y, mo, 1) - MINUTE_MS;
    else if (!dayMatches(schedule, d)) t = Date.UTC(y, mo, day) - MINUTE_MS;
    else if (schedule.hours[h] !== true) t = Date.UTC(y, mo, day, h) - MINUTE_MS;
    else if (schedule.minutes[mi] !== true) {
      const previous = schedule.minutes.lastIndexOf(true, mi - 1);
      t = previous === -1 || mi === 0 ? Date.UTC(y, mo, day, h) - MINUTE_MS : Date.UTC(y, mo, day, h, previous);
    } else return t;
  }
}
