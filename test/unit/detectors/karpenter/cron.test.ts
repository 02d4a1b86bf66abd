import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextFire, parseCron, previousFire, type CronSchedule } from '../../../../src/detectors/karpenter/cron.ts';

const MINUTE = 60_000;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function parsed(spec: string): CronSchedule {
  const result = parseCron(spec);
  if (!result.ok) throw new Error(result.error);
  return result.schedule;
}

describe('parseCron: what robfig/cron ParseStandard accepts', () => {
  it.each([
    ['0 9 * * mon-fri', '2026-01-02T09:00:00.000Z', '2026-01-05T09:00:00.000Z'],
    ['0 9 * * MON-FRI', '2026-01-02T09:00:00.000Z', '2026-01-05T09:00:00.000Z'],
    ['*/15 * * * *', '2026-01-02T10:07:00.000Z', '2026-01-02T10:15:00.000Z'],
    ['5/20 * * * *', '2026-01-02T10:26:00.000Z', '2026-01-02T10:45:00.000Z'],
    ['0 0-6/3 * * *', '2026-01-02T04:00:00.000Z', '2026-01-02T06:00:00.000Z'],
    ['30 2 1,15 * *', '2026-01-02T00:00:00.000Z', '2026-01-15T02:30:00.000Z'],
    ['0 0 * jan,jul *', '2026-02-01T00:00:00.000Z', '2026-07-01T00:00:00.000Z'],
    ['0 0 ? * sun', '2026-01-02T00:00:00.000Z', '2026-01-04T00:00:00.000Z'],
    ['@hourly', '2026-01-02T10:07:00.000Z', '2026-01-02T11:00:00.000Z'],
    ['@daily', '2026-01-02T10:07:00.000Z', '2026-01-03T00:00:00.000Z'],
    ['@midnight', '2026-01-02T10:07:00.000Z', '2026-01-03T00:00:00.000Z'],
    ['@weekly', '2026-01-02T10:07:00.000Z', '2026-01-04T00:00:00.000Z'],
    ['@monthly', '2026-01-02T10:07:00.000Z', '2026-02-01T00:00:00.000Z'],
    ['@yearly', '2026-01-02T10:07:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['@annually', '2026-01-02T10:07:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['0 0 29 2 *', '2026-03-01T00:00:00.000Z', '2028-02-29T00:00:00.000Z'],
  ])('%s: next after %s is %s', (spec, after, expected) => {
    // Act
    const next = nextFire(parsed(spec), at(after));

    // Assess
    expect(iso(next)).toBe(expected);
  });

  it('next is strictly after the instant, at a whole minute', () => {
    // Prepare
    const everyMinute = parsed('* * * * *');

    // Act / Assess
    expect(iso(nextFire(everyMinute, at('2026-01-01T00:00:00Z')))).toBe('2026-01-01T00:01:00.000Z');
    expect(iso(nextFire(everyMinute, at('2026-01-01T00:00:30Z')))).toBe('2026-01-01T00:01:00.000Z');
    expect(iso(previousFire(everyMinute, at('2026-01-01T00:00:30Z')))).toBe('2026-01-01T00:00:00.000Z');
  });

  it('day of month and day of week both restricted: either matches (the OR rule)', () => {
    // Prepare: the 13th, or any Friday. 2026-01-09 is a Friday, 2026-01-13 a Tuesday.
    const schedule = parsed('0 0 13 * 5');

    // Act / Assess
    expect(iso(nextFire(schedule, at('2026-01-07T00:00:00Z')))).toBe('2026-01-09T00:00:00.000Z');
    expect(iso(nextFire(schedule, at('2026-01-10T00:00:00Z')))).toBe('2026-01-13T00:00:00.000Z');
  });

  it('day of month restricted, day of week a star: both must match', () => {
    // Prepare: `*/1` on the weekday keeps its star; `5` restricts it.
    const schedule = parsed('0 0 13 * */1');
    const fridayThe13th = parsed('0 0 13 * 5');

    // Act / Assess: with the star only the 13th matters; without, the Friday before it fires too.
    expect(iso(nextFire(schedule, at('2026-01-07T00:00:00Z')))).toBe('2026-01-13T00:00:00.000Z');
    expect(iso(nextFire(fridayThe13th, at('2026-01-07T00:00:00Z')))).toBe('2026-01-09T00:00:00.000Z');
  });

  it.each([
    ['0 9 * * 7', 'end of range (7) above maximum (6): 7'],
    ['0 9 * *', 'expected exactly 5 fields, found 4: [0 9 * *]'],
    ['0 0 9 * * *', 'expected exactly 5 fields, found 6: [0 0 9 * * *]'],
    ['', 'expected exactly 5 fields, found 0: []'],
    ['@every 1h', 'unrecognized descriptor: @every 1h'],
    ['@Daily', 'unrecognized descriptor: @Daily'],
    ['60 * * * *', 'end of range (60) above maximum (59): 60'],
    ['0 0 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['0 5-3 * * *', 'beginning of range (5) beyond end of range (3): 5-3'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['0 0 * foo *', 'failed to parse int from foo'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['1/2/3 * * * *', 'too many slashes: 1/2/3'],
  ])('rejects %j: %s', (spec, error) => {
    // Act
    const result = parseCron(spec);

    // Assess
    expect(result).toEqual({ ok: false, error });
  });

  it('a schedule that never fires gives no next time (robfig returns the zero time)', () => {
    // Act / Assess
    expect(nextFire(parsed('0 0 30 2 *'), at('2026-01-01T00:00:00Z'))).toBeUndefined();
    expect(previousFire(parsed('0 0 31 4 *'), at('2026-01-01T00:00:00Z'))).toBeUndefined();
  });
});

// --- Property: the skipping search agrees with a minute-by-minute walk -----------------------

interface FieldSpec {
  text: string;
  values: Set<number>;
  star: boolean;
}

const range = (a: number, b: number, step = 1) => {
  const out = new Set<number>();
  for (let v = a; v <= b; v += step) out.add(v);
  return out;
};

function fieldSpec(min: number, max: number): fc.Arbitrary<FieldSpec> {
  const value = fc.integer({ min, max });
  const step = fc.integer({ min: 1, max: Math.max(2, Math.floor((max - min) / 2)) });
  const part: fc.Arbitrary<FieldSpec> = fc.oneof(
    fc.constant({ text: '*', values: range(min, max), star: true }),
    step.map((n) => ({ text: `*/${n}`, values: range(min, max, n), star: n === 1 })),
    value.map((v) => ({ text: `${v}`, values: new Set([v]), star: false })),
    fc.tuple(value, value).map(([a, b]) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      return { text: `${lo}-${hi}`, values: range(lo, hi), star: false };
    }),
    fc.tuple(value, value, step).map(([a, b, n]) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      return { text: `${lo}-${hi}/${n}`, values: range(lo, hi, n), star: false };
    }),
    fc.tuple(value, step).map(([a, n]) => ({ text: `${a}/${n}`, values: range(a, max, n), star: false })),
  );
  return fc.oneof(
    { weight: 3, arbitrary: part },
    {
      weight: 1,
      arbitrary: fc.tuple(part, part).map(([a, b]) => ({
        text: `${a.text},${b.text}`,
        values: new Set([...a.values, ...b.values]),
        star: a.star || b.star,
      })),
    },
  );
}

const cronSpec = fc.record({
  minute: fieldSpec(0, 59),
  hour: fieldSpec(0, 23),
  dom: fieldSpec(1, 31),
  // Mostly every month, so a few days' walk often meets a fire.
  month: fc.oneof(
    { weight: 4, arbitrary: fc.constant({ text: '*', values: range(1, 12), star: true }) },
    {
      weight: 1,
      arbitrary: fieldSpec(1, 12),
    },
  ),
  dow: fieldSpec(0, 6),
});

type Spec = typeof cronSpec extends fc.Arbitrary<infer T> ? T : never;

/** The textbook reading of a cron line, minute by minute, independent of the parser under test. */
function bruteMatches(spec: Spec, ms: number): boolean {
  const d = new Date(ms);
  const dom = spec.dom.values.has(d.getUTCDate());
  const dow = spec.dow.values.has(d.getUTCDay());
  const day = spec.dom.star || spec.dow.star ? dom && dow : dom || dow;
  return (
    spec.minute.values.has(d.getUTCMinutes()) &&
    spec.hour.values.has(d.getUTCHours()) &&
    spec.month.values.has(d.getUTCMonth() + 1) &&
    day
  );
}

const WINDOW_MINUTES = 3 * 24 * 60;
const instant = fc
  .integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2028-12-31T00:00:00Z') })
  .map((ms) => ms - (ms % 1000));

describe('nextFire / previousFire against a minute-by-minute walk', () => {
  it('next: the first matching minute after the instant, within three days', () => {
    fc.assert(
      fc.property(cronSpec, instant, (spec, from) => {
        // Prepare
        const text = [spec.minute, spec.hour, spec.dom, spec.month, spec.dow].map((f) => f.text).join(' ');
        const schedule = parsed(text);
        let brute: number | undefined;
        const first = Math.floor(from / MINUTE) * MINUTE + MINUTE;
        for (let i = 0; i < WINDOW_MINUTES && brute === undefined; i++) {
          if (bruteMatches(spec, first + i * MINUTE)) brute = first + i * MINUTE;
        }

        // Act
        const next = nextFire(schedule, from);

        // Assess
        if (brute !== undefined) expect(iso(next), text).toBe(iso(brute));
        else expect(next === undefined || next >= first + WINDOW_MINUTES * MINUTE, text).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('previous: the last matching minute at or before the instant, within three days', () => {
    fc.assert(
      fc.property(cronSpec, instant, (spec, from) => {
        // Prepare
        const text = [spec.minute, spec.hour, spec.dom, spec.month, spec.dow].map((f) => f.text).join(' ');
        const schedule = parsed(text);
        let brute: number | undefined;
        const last = Math.floor(from / MINUTE) * MINUTE;
        for (let i = 0; i < WINDOW_MINUTES && brute === undefined; i++) {
          if (bruteMatches(spec, last - i * MINUTE)) brute = last - i * MINUTE;
        }

        // Act
        const previous = previousFire(schedule, from);

        // Assess
        if (brute !== undefined) expect(iso(previous), text).toBe(iso(brute));
        else expect(previous === undefined || previous <= last - WINDOW_MINUTES * MINUTE, text).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
