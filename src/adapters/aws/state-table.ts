/**
 * The state table's key schema: infra/state.yml declares the same (a test compares them), and
 * the dynalite tests create their table from this.
 */
export const STATE_TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** DynamoDB TTL attribute: epoch seconds. */
  ttlAttribute: 'expiresAt',
} as const;
