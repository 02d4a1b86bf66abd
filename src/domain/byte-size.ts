const BINARY: Readonly<Record<string, number>> = { ki: 1024, mi: 1024 ** 2, gi: 1024 ** 3, ti: 1024 ** 4 };
const DECIMAL: Readonly<Record<string, number>> = { k: 1e3, m: 1e6, g: 1e9, t: 1e12 };

/**
 * `512MiB`, `1GiB`, `1.5Gi`, `2GB`, `1073741824` → bytes; undefined unless a whole number of at
 * least one byte. Binary units (`Ki`, `Mi`, `Gi`, `Ti`, with or without `B`) are powers of 1024,
 * decimal ones (`kB`, `MB`, `GB`, `TB`, or `K`, `M`, `G`, `T` as Kubernetes writes them) of 1000.
 */
export function parseByteSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(?:([kmgt]i?)b?|b)?$/i.exec(text.trim());
  if (!match) return undefined;
  const unit = match[2]?.toLowerCase();
  const factor = unit === undefined ? 1 : (BINARY[unit] ?? DECIMAL[unit] ?? Number.NaN);
  const bytes = Number(match[1]) * factor;
  return Number.isSafeInteger(bytes) && bytes >= 1 ? bytes : undefined;
}

/** Bytes for messages: `1 GiB`, `512 MiB`, `1.5 GiB`, `4000 bytes`. */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of [
    ['TiB', 1024 ** 4],
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size) {
      const value = bytes / size;
      return `${Number.isInteger(value) ? value : Number(value.toFixed(value < 10 ? 2 : 1))} ${unit}`;
    }
  }
  return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
}
