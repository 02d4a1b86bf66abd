import type { Container } from '../../domain/kube.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import { controllerVersion, pickControllerContainer } from './controller-deployment.ts';

/**
 * Karpenter's feature gates as its controller reads them (docs/findings.md#node_not_ready, "Node
 * repair"): the `--feature-gates` flag, defaulting to the `FEATURE_GATES` environment variable
 * (the Helm chart renders `settings.featureGates.*` into it), a comma list of `Name=bool` parsed
 * with Go's strconv.ParseBool. A gate the text does not name keeps its default (every gate this
 * project reads defaults to false). `AWS_FEATURE_GATES` is the AWS provider's own and not read here.
 */
export interface FeatureGates {
  /** Where the text came from: `env FEATURE_GATES`, `arg --feature-gates`, or why it is unknown. */
  from: string;
  /** The text as set, undefined when it cannot be read (no controller spec, or a valueFrom). */
  text: string | undefined;
  /** The gates it names, by name. */
  gates: ReadonlyMap<string, boolean>;
  /** Where the controller's spec was read: its Deployment, else one of its pods. */
  specFrom: 'deployment' | 'pod' | undefined;
  /** The controller container's name (`controller` in the chart). */
  container: string | undefined;
}

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** The controller container of the Deployment's template, else of one of its pods (named `controller`, else the first). */
export function controllerContainerOf(info: ControllerInfo): { container: Container; from: 'deployment' | 'pod' } | undefined {
  const fromDeployment = pickControllerContainer(info.deployment?.spec?.template?.spec?.containers);
  if (fromDeployment) return { container: fromDeployment, from: 'deployment' };
  const fromPod = info.pods.map((p) => pickControllerContainer(p.spec?.containers)).find((c) => c !== undefined);
  return fromPod ? { container: fromPod, from: 'pod' } : undefined;
}

/** `--feature-gates=X` or `--feature-gates X` (Go's flag package takes both, and one dash too). */
function featureGatesArg(args: readonly string[]): string | undefined {
  let found: string | undefined;
  args.forEach((arg, i) => {
    const m = /^--?feature-gates(?:=(.*))?$/.exec(arg);
    if (m) found = m[1] ?? args[i + 1];
  });
  return found;
}

function parseGates(text: string): Map<string, boolean> {
  const gates = new Map<string, boolean>();
  for (const part of text.split(',')) {
    const [name, value] = part.split('=').map((s) => s.trim());
    if (!name || value === undefined) continue;
    if (TRUE.has(value)) gates.set(name, true);
    else if (FALSE.has(value)) gates.set(name, false);
  }
  return gates;
}

export function featureGates(info: ControllerInfo | undefined): FeatureGates {
  const found = info ? controllerContainerOf(info) : undefined;
  if (!found)
    return {
      from: "the controller's Deployment was not captured",
      text: undefined,
      gates: new Map(),
      specFrom: undefined,
      container: undefined,
    };
  const { container, from } = found;
  const spec = { specFrom: from, container: container.name };
  const arg = featureGatesArg(container.args ?? []);
  if (arg !== undefined) return { from: 'arg --feature-gates', text: arg, gates: parseGates(arg), ...spec };
  const env = container.env?.find((e) => e.name === 'FEATURE_GATES');
  if (env?.valueFrom)
    return { from: 'env FEATURE_GATES is set from a reference (valueFrom)', text: undefined, gates: new Map(), ...spec };
  if (env?.value === undefined) return { from: 'FEATURE_GATES unset', text: '', gates: new Map(), ...spec };
  return { from: 'env FEATURE_GATES', text: env.value, gates: parseGates(env.value), ...spec };
}

/** The controller's version: its chart label, else its image tag (`controller:v1.2.3@sha256:…`), without the `v`. */
export function controllerVersionOf(info: ControllerInfo | undefined): string | undefined {
  if (!info) return undefined;
  return controllerVersion(info, controllerContainerOf(info)?.container);
}
