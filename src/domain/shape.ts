/**
 * Reading untrusted parsed JSON/YAML. Captures are user files: every field may be missing or of
 * the wrong type, and nothing here may throw anything but ShapeError (which the loader turns into
 * an InputError naming the file).
 */

import type { JsonRecord } from './json.ts';

export type { JsonRecord };

/** A capture whose structure is wrong; `message` is one line, without the file name. */
export class ShapeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ShapeError';
  }
}

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function optString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A non-empty string, else undefined (the AWS CLI prints `""` for absent values, e.g. PrivateDnsName). */
export function optText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function optNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A timestamp as ISO-8601 text; YAML loaders or SDKs may hand over Date objects. */
export function optTime(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  return undefined;
}

/**
 * The record without its undefined fields: records built from optional reads print and compare like hand-built ones.
 * A loop rather than entries/filter/fromEntries: every Event a scan reads goes through here twice.
 */
export function withoutUndefined<T extends Record<string, unknown>>(record: T): T {
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept as T;
}

export function optStringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

/** `{a: 'x', b: 1}` → `{a: 'x'}`: keeps string values only. */
export function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** AWS `Tags: [{Key, Value}]` → `{Key: Value}`; also accepts the EKS map form `{key: value}`. */
export function awsTags(value: unknown): Record<string, string> {
  if (!Array.isArray(value)) return stringRecord(value);
  const out: Record<string, string> = {};
  for (const tag of value) {
    if (isRecord(tag) && typeof tag.Key === 'string') out[tag.Key] = typeof tag.Value === 'string' ? tag.Value : '';
  }
  return out;
}

export function arrayAt(record: JsonRecord, key: string, where: string): unknown[] {
  const value = record[key];
  if (!Array.isArray(value)) throw new ShapeError(`${where}${key} is not a list`);
  return value;
}

export function recordAt(value: unknown, where: string): JsonRecord {
  if (!isRecord(value)) throw new ShapeError(`${where} is not an object`);
  return value;
}

export function stringAt(record: JsonRecord, key: string, where: string): string {
  const value = record[key];
  if (typeof value !== 'string' || value === '') throw new ShapeError(`${where} has no ${key}`);
  return value;
}

/** Makes any text safe for a one-line message: no control characters, bounded length. */
export function oneLine(text: string, max = 120): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
