import type { LogLine, Subnet } from '../../domain/aws.ts';
import { isoSeconds } from '../../domain/kube-helpers.ts';
import { logText } from '../cloud-errors/cloud-errors.ts';
import { newestLogTime, stoppedRecurring } from '../karpenter/log-recency.ts';

/**
 * The Provisioner era (v1alpha5, before EC2NodeClass; docs/findings.md, NODECLASS_NOT_READY): the
 * subnets and security groups were selected by the Provisioner's `provider` (or its
 * AWSNodeTemplate), which the scan does not read, so Karpenter's own errors in its log are the
 * evidence. Strings from pkg/cloudprovider/aws/subnets.go and securitygroups.go (v0.5 to v0.16):
 * `no subnets matched selector %v` (the selector printed as a Go map) and
 * `no security groups exist given constraints` (no selector printed).
 */
const NO_SUBNETS = /no subnets matched selector map\[([^\]]*)\]/;
const NO_SECURITY_GROUPS = /no security groups exist given constraints/;

export interface ProvisionerSelectorError {
  kind: 'subnets' | 'security-groups';
  /** The Provisioner the line names (`"provisioner": …`, or the reconciled Provisioner's `name`). */
  provisioner: string | undefined;
  /** The subnet selector as printed: `[["karpenter.sh/discovery", "test-karpenter-sa-9"]]`; empty for security groups. */
  selector: [string, string][];
  line: LogLine;
  /** The first such line's time. */
  since: string | null;
}

/** Read once per log list: the detector's evidence check and its detection both ask. */
const READ = new WeakMap<readonly LogLine[], ProvisionerSelectorError[]>();

/** One error per kind and Provisioner, its last line quoted; none that stopped recurring an hour before the log ends. */
export function provisionerSelectorErrors(logs: readonly LogLine[]): ProvisionerSelectorError[] {
  let errors = READ.get(logs);
  if (!errors) {
    errors = readSelectorErrors(logs);
    READ.set(logs, errors);
  }
  return errors;
}

function readSelectorErrors(logs: readonly LogLine[]): ProvisionerSelectorError[] {
  const byKey = new Map<string, { error: ProvisionerSelectorError; times: (string | undefined)[] }>();
  for (const line of logs) {
    const text = logText(line);
    const subnets = NO_SUBNETS.exec(text);
    const kind = subnets ? 'subnets' : NO_SECURITY_GROUPS.test(text) ? 'security-groups' : undefined;
    if (!kind) continue;
    const provisioner = provisionerOf(line, text);
    const key = `${kind}\u0000${provisioner ?? ''}`;
    const seen = byKey.get(key);
    const error: ProvisionerSelectorError = {
      kind,
      provisioner,
      selector: subnets ? goMap(subnets[1] ?? '') : [],
      line,
      since: seen?.error.since ?? isoSeconds(line.time),
    };
    if (seen) {
      seen.error = error;
      seen.times.push(line.time);
    } else byKey.set(key, { error, times: [line.time] });
  }
  const newest = newestLogTime(logs);
  return [...byKey.values()].filter((e) => !stoppedRecurring(e.times, newest)).map((e) => e.error);
}

function provisionerOf(line: LogLine, text: string): string | undefined {
  const field = line.fields.provisioner;
  if (typeof field === 'string' && field) return field;
  if (line.fields['reconciler kind'] === 'Provisioner' && typeof line.fields.name === 'string') return line.fields.name;
  // A console line the reader did not split: its JSON fields are still in the text.
  return (
    /"reconciler kind":\s*"Provisioner",\s*"name":\s*"([^"]+)"/.exec(text)?.[1] ?? /"provisioner":\s*"([^"]+)"/.exec(text)?.[1]
  );
}

/** Go's `%v` of a map[string]string: `k1:v1 k2:v2`, sorted by key. A key holding `:` cannot be told apart: split at the first. */
function goMap(body: string): [string, string][] {
  return body
    .split(' ')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf(':');
      return at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    });
}

/**
 * Whether a subnet meets every criterion of a Provisioner-era selector (they are ANDed): a tag
 * with that value, `*` for any value, or `aws-ids` listing subnet IDs.
 */
export function subnetMatches(subnet: Subnet, selector: readonly [string, string][]): boolean {
  return selector.every(([key, value]) => {
    if (key === 'aws-ids') return value.split(',').some((id) => id.trim() === subnet.id);
    const tag = subnet.tags[key];
    return tag !== undefined && (value === '*' || tag === value);
  });
}

/** `karpenter.sh/discovery=test-karpenter-sa-9, team=*`. */
export function selectorText(selector: readonly [string, string][]): string {
  return selector.map(([k, v]) => `${k}=${v}`).join(', ');
}
