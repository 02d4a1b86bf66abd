/** Reading fields of stored objects whose shape is not checked (captures hold what they hold). */
import { isRecord, type JsonRecord } from '../../domain/shape.ts';

export function record(value: unknown): JsonRecord {
  return isRecord(value) ? value : {};
}

/** The objects of a list field; anything else in it is skipped. */
export function list(value: unknown): JsonRecord[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function number(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
