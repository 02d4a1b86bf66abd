/**
 * `gaps.json` in a folder written by `snapshot --out`: what its other files cannot show. An object
 * set aside as malformed is not in them, and a Kubernetes source that could not be read has no
 * file at all (AWS ones have their CLI error), so a scan of the folder would come out complete,
 * or blame a source "not captured" when it was denied. The file carries those gaps and the notes
 * that say which objects were set aside and why; the loader reads it back into the same gaps and
 * notes. Recognised by content (`apiVersion` and `kind`), like every capture file.
 */
import { SOURCE_NAMES, type Gap, type SourceName } from '../domain/snapshot.ts';
import { isRecord, oneLine, ShapeError, type JsonRecord } from '../domain/shape.ts';

export const GAPS_FILE = 'gaps.json';
const API_VERSION = 'karpenter-sentinel/v1';
const KIND = 'CaptureGaps';
/** Long enough for any gap or note we write; a hand-edited file cannot flood the report. */
const MAX_TEXT = 1000;
const MAX_ENTRIES = 1000;

export interface GapsRecord {
  gaps: readonly Gap[];
  notes: readonly string[];
}

export function gapsFileText(record: GapsRecord): string {
  const document = {
    apiVersion: API_VERSION,
    kind: KIND,
    gaps: record.gaps.map((g) => ({ source: g.source, error: g.error })),
    notes: record.notes,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

export function isGapsDocument(document: JsonRecord): boolean {
  return document.apiVersion === API_VERSION && document.kind === KIND;
}

/** The gaps and notes of a `gaps.json` document; ShapeError when it is not one we wrote. */
export function readGapsDocument(document: JsonRecord): GapsRecord {
  const { gaps, notes } = document;
  if (!Array.isArray(gaps) || !(notes === undefined || Array.isArray(notes))) {
    throw new ShapeError(`a ${KIND} document needs a list of gaps (and of notes)`);
  }
  return {
    gaps: gaps.slice(0, MAX_ENTRIES).map((g, i) => {
      const source = isRecord(g) ? g.source : undefined;
      const error = isRecord(g) ? g.error : undefined;
      if (typeof source !== 'string' || !(SOURCE_NAMES as readonly string[]).includes(source) || typeof error !== 'string') {
        throw new ShapeError(`${KIND} gaps[${i}]: needs a source (${SOURCE_NAMES.join(', ')}) and an error text`);
      }
      return { source: source as SourceName, error: oneLine(error, MAX_TEXT) };
    }),
    notes: (notes ?? [])
      .slice(0, MAX_ENTRIES)
      .filter((n): n is string => typeof n === 'string')
      .map((n) => oneLine(n, MAX_TEXT)),
  };
}
