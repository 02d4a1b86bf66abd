/**
 * Karpenter's words when a NodePool matches a pod but nothing it could launch would take it.
 *
 * The InstanceTypeFilterError family (core `pkg/controllers/provisioning/scheduling/nodeclaim.go`),
 * one error of a `Failed to schedule pod, …` event or `could not schedule pod` log line:
 *   v1.3+: `no instance type has enough resources, requirements=karpenter.k8s.aws/instance-cpu Exists <=32,
 *           karpenter.sh/capacity-type In [on-demand], …, resources={"cpu":"96150m","pods":"4"}`
 *          (`resources=min={…}, max={…}` when the daemonset overhead differs by instance type)
 *   v1.0–v1.2: `incompatible with nodepool "default", daemonset overhead={…}, no instance type satisfied
 *           resources {"cpu":"96150m","pods":"4"} and requirements karpenter.k8s.aws/instance-cpu Exists <=32, …
 *           (no instance type has enough resources)`
 * and the scheduler's (`scheduler.go`): `nodepool requirements filtered out all available instance types`,
 * `pod didn’t schedule because NodePool couldn’t meet minValues requirements, minValues requirement is not met
 * for label(s) (label(s)=[karpenter.k8s.aws/instance-family]), requirements=…, resources=…` (v1.0:
 * `NodePool "x" couldn’t`; curly apostrophes, straight ones accepted too).
 *
 * Zone and volume topology (`nodeclaim.go`, `volumetopology.go`, `topology.go`):
 *   `incompatible volume requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1c]
 *    not in topology.kubernetes.io/zone In [us-east-1a us-east-1b]`
 *   `unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = …,
 *    podDomains = …, nodeDomains = …`
 *   `failed to validate pvc, storage class uses unsupported topology key`, `persistentvolumeclaim bound to
 *    non-existent persistentvolume`, …
 */

export interface InstanceTypeShortfall {
  /** The NodePool the error is about, when Karpenter named it (`incompatible with nodepool "x"`, `(NodePool=x)`). */
  nodePool?: string;
  /** Karpenter's sentence without its requirements and resources: `no instance type has enough resources`. */
  reason: string;
  /** The NodeClaim requirements Karpenter filtered with, one each: `karpenter.k8s.aws/instance-cpu Exists <=32`. */
  requirements: string[];
  /** What had to fit (the pod's requests plus daemonset overhead), as Karpenter printed it; the larger bound of min/max. */
  resources?: Record<string, string>;
  /** The minValues of a NodePool requirement could not be met. */
  minValues: boolean;
  /** The labels whose minValues failed, when named. */
  minValuesLabels: string[];
}

export interface TopologyConflict {
  nodePool?: string;
  kind: 'volume' | 'spread' | 'zone';
  /** Karpenter's error as written. */
  text: string;
  /** Zones (or zone IDs) the pod or its volume needs, when the error says. */
  zones: string[];
}

/** Zone keys Karpenter and kube-scheduler know; `topology.k8s.aws/zone-id` holds zone IDs (`use1-az1`). */
const ZONE_KEYS = ['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'] as const;
export const ZONE_ID_KEY = 'topology.k8s.aws/zone-id';

export function isZoneKey(key: string): boolean {
  return (ZONE_KEYS as readonly string[]).includes(key) || key === ZONE_ID_KEY;
}

const MIN_VALUES = /couldn['’]t meet minValues requirements|minValues requirement is not met/i;
const INSTANCE_TYPES =
  /^(?:no instance types? (?:met|has|had|which|satisfied|satisfies)\b|nodepool requirements filtered out all (?:compatible )?available instance types)/i;
const NODEPOOL_KV = /\s*\((?:NodePool|nodepool)=([^)\s]+)\)\s*$/;
const REQUIREMENT_START = /, (?=[A-Za-z0-9][-A-Za-z0-9_./]*\s+(?:In|NotIn|Exists|DoesNotExist|Gt|Lt)\b)/;

/** One error of Karpenter's list, when it is of the instance-type family; undefined otherwise. */
export function parseInstanceTypeShortfall(error: string, nodePool?: string): InstanceTypeShortfall | undefined {
  let text = error.trim();
  const minValues = MIN_VALUES.test(text);
  if (!minValues && !INSTANCE_TYPES.test(text)) return undefined;
  const named = NODEPOOL_KV.exec(text);
  if (named) text = text.slice(0, named.index);
  const v1NodePool = /NodePool "([^"]*)" couldn['’]t meet minValues/i.exec(text)?.[1];
  const pool = nodePool ?? named?.[1] ?? v1NodePool;
  const result: InstanceTypeShortfall = {
    ...(pool ? { nodePool: pool } : {}),
    reason: text,
    requirements: [],
    minValues,
    minValuesLabels:
      /label\(s\)=\[([^\]]*)\]/
        .exec(text)?.[1]
        ?.split(/[\s,]+/)
        .filter(Boolean) ?? [],
  };
  const old =
    /^no instance type satisfied resources (\{[^}]*\}) and requirements ([\s\S]*?)(?: \((no instance type[^)]*)\))?$/.exec(text);
  if (old) {
    result.resources = parseResourceJson(old[1]);
    result.requirements = splitRequirements(old[2] ?? '');
    result.reason = old[3] ?? 'no instance type satisfied resources and requirements';
    return result;
  }
  const at = text.indexOf(', requirements=');
  if (at >= 0) {
    result.reason = text.slice(0, at);
    const rest = text.slice(at + ', requirements='.length);
    const res = rest.lastIndexOf(', resources=');
    result.requirements = splitRequirements(res >= 0 ? rest.slice(0, res) : rest);
    if (res >= 0) {
      const printed = rest.slice(res + ', resources='.length);
      const max = /max=(\{[^}]*\})/.exec(printed);
      result.resources = parseResourceJson(max?.[1] ?? /\{[^}]*\}/.exec(printed)?.[0]);
    }
  }
  return result;
}

function splitRequirements(text: string): string[] {
  return text
    .trim()
    .split(REQUIREMENT_START)
    .map((r) => r.trim())
    .filter(Boolean);
}

function parseResourceJson(text: string | undefined): Record<string, string> | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object') return undefined;
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
  } catch {
    return undefined;
  }
}

const VOLUME =
  /^(?:incompatible volume requirements|failed to validate pvc|persistentvolumeclaim bound to non-existent persistentvolume|unbound pvc must define a storage class|pvc is considered unbound)/i;
const SPREAD = /^unsatisfiable topology constraint for/i;

/** One error of Karpenter's list, when it is a zone, topology-spread or volume-topology conflict. */
export function parseTopologyConflict(error: string, nodePool?: string): TopologyConflict | undefined {
  const text = error.trim();
  const pool = nodePool ? { nodePool } : {};
  if (VOLUME.test(text)) return { ...pool, kind: 'volume', text, zones: incomingZones(text) };
  if (SPREAD.test(text)) {
    const podDomains = /podDomains = ([^,]*?)(?:, nodeDomains|$)/.exec(text)?.[1] ?? '';
    return { ...pool, kind: 'spread', text, zones: zonesOf(podDomains) };
  }
  // `incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1c] not in …`
  const key = /^incompatible requirements, key ([^\s,]+)/.exec(text)?.[1];
  if (key && isZoneKey(key)) return { ...pool, kind: 'zone', text, zones: incomingZones(text) };
  return undefined;
}

/** The values of the first zone requirement: the incoming side of `A not in B`. */
function incomingZones(text: string): string[] {
  const first = text.split(/ not in /)[0] ?? '';
  return zonesOf(first);
}

/** Values of `topology.kubernetes.io/zone In [a b]` (or zone-id) requirements in a text. */
export function zonesOf(text: string): string[] {
  const zones: string[] = [];
  const pattern =
    /(topology\.kubernetes\.io\/zone|failure-domain\.beta\.kubernetes\.io\/zone|topology\.k8s\.aws\/zone-id) In \[([^\]]*)\]/g;
  for (const m of text.matchAll(pattern))
    zones.push(...(m[2] ?? '').split(/\s+/).filter((z) => z && !/^and$|^\d+$|^others$/.test(z)));
  return [...new Set(zones)];
}

/** `label "karpenter.k8s.aws/instance-famly" does not have known values (typo of "karpenter.k8s.aws/instance-family"?)`. */
export function typoHints(text: string): { label: string; suggestion: string }[] {
  const hints: { label: string; suggestion: string }[] = [];
  for (const m of text.matchAll(/label "([^"]+)" does not have known values \(typo of "([^"]+)"\?\)/g))
    hints.push({ label: m[1] ?? '', suggestion: m[2] ?? '' });
  return hints;
}
