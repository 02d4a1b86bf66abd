/** A parsed JSON/YAML object whose fields are not yet checked. */
export type JsonRecord = Record<string, unknown>;
