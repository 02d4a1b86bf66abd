import { commandStep } from '../../domain/finding.ts';
import { shellQuote } from '../../domain/shell.ts';
import { parseVersion } from '../karpenter/version.ts';
import { clusterNameValues, type ClusterNameMissing, type CrdMissing } from './start-config.ts';

/**
 * The steps for a controller that cannot start because of its own configuration (start-config.ts):
 * what to look at first, then the value or the CRDs to put in place. Values from the capture are
 * shell-quoted.
 */
export interface StartConfigEnv {
  namespace: string;
  deploymentName: string;
  release: string;
  /** The controller's version (image tag or chart label), which names the Helm values and the CRDs. */
  version: string | undefined;
  clusterName: string | undefined;
  clusterEndpoint: string | undefined;
  region: string | undefined;
}

export function clusterNameSteps(c: ClusterNameMissing, env: StartConfigEnv): string[] {
  const ns = shellQuote(env.namespace);
  const keys = clusterNameValues(env.version);
  const nameKey = keys?.name ?? 'settings.clusterName';
  const endpointKey = keys?.endpoint ?? 'settings.clusterEndpoint';
  const which = keys
    ? `chart v${env.version} reads \`${nameKey}\`${c.endpointEmpty ? ` and \`${endpointKey}\`` : ''}`
    : 'the version is unknown: charts up to v0.18 read the top-level `clusterName`, v0.19 to v0.31 `settings.aws.clusterName`, v0.32 and later `settings.clusterName`';
  const region = env.region ? ` --region ${shellQuote(env.region)}` : '';
  const name = env.clusterName ? shellQuote(env.clusterName) : '"$CLUSTER_NAME"';
  const endpoint = env.clusterEndpoint
    ? shellQuote(env.clusterEndpoint)
    : `"$(aws eks describe-cluster${region} --name ${name} --query cluster.endpoint --output text)"`;
  const sets = [
    `--set ${shellQuote(`${nameKey}=`)}${name}`,
    ...(c.endpointEmpty ? [`--set ${shellQuote(`${endpointKey}=`)}${endpoint}`] : []),
  ];
  const steps = [
    commandStep(
      'the values the controller was given (CLUSTER_NAME empty or absent is what it refuses to start without)',
      `kubectl get deployment -n ${ns} ${shellQuote(env.deploymentName)} -o jsonpath='{range .spec.template.spec.containers[*].env[*]}{.name}={.value}{"\\n"}{end}'`,
    ),
    commandStep(
      `the Helm values as installed: ${which}; a value under another key (for example under \`aws:\`) is ignored, so move it where the chart reads it, in the values file, the Argo CD Application or the Terraform release that installs the chart`,
      `helm get values ${shellQuote(env.release)} -n ${ns}`,
    ),
  ];
  // The OCI chart exists from v0.17; without a version the key itself is unknown, so no command is guessed.
  if (keys && env.version && (keys.name !== 'clusterName' || minorOf(env.version) >= 17)) {
    steps.push(
      commandStep(
        `set the cluster's name${c.endpointEmpty ? ' and endpoint' : ''} in the values${env.clusterName ? '' : ' (CLUSTER_NAME: the name `aws eks list-clusters` shows)'}`,
        `helm upgrade ${shellQuote(env.release)} oci://public.ecr.aws/karpenter/karpenter -n ${ns} --version ${shellQuote(chartVersion(env.version))} --reuse-values ${sets.join(' ')}`,
      ),
    );
  } else if (keys) {
    steps.push(
      `Set the top-level \`clusterName\`${c.endpointEmpty ? ' and `clusterEndpoint`' : ''} in the values of the charts.karpenter.sh chart that installed it (not under \`aws:\`), and upgrade the release with them.`,
    );
  } else {
    steps.push(
      `Set the cluster's name${c.endpointEmpty ? ' and endpoint' : ''} under the key the installed chart reads (the step above), and upgrade the release with the same chart version.`,
    );
  }
  steps.push(
    commandStep(
      'the controller starts once it has the name',
      `kubectl rollout status -n ${ns} deployment/${shellQuote(env.deploymentName)}`,
    ),
  );
  return steps;
}

export function crdSteps(c: CrdMissing, env: StartConfigEnv): string[] {
  const ns = shellQuote(env.namespace);
  const group = c.groupVersion.split('/')[0] ?? c.groupVersion;
  const steps = [
    commandStep(
      `the CRDs of ${c.groupVersion} the cluster has (the API server says it serves none)`,
      `kubectl get crd -o ${shellQuote('custom-columns=NAME:.metadata.name,SERVED:.spec.versions[*].name')} | grep -F ${shellQuote(group)}`,
    ),
  ];
  if (env.version && c.crds.length > 0) {
    const tag = `v${env.version}`;
    steps.push(
      commandStep(
        `install the CRDs Karpenter ${tag} needs (${c.crds.join(', ')}) from the same release; leave them until the controller is upgraded to a version that no longer uses ${c.groupVersion}`,
        c.crds
          .map(
            (name) =>
              `kubectl apply -f ${shellQuote(`https://raw.githubusercontent.com/aws/karpenter-provider-aws/${tag}/pkg/apis/crds/${crdFile(name)}`)}`,
          )
          .join('\n'),
      ),
      commandStep(
        "or install that version's CRD chart, which holds all of them",
        `helm upgrade --install karpenter-crd oci://public.ecr.aws/karpenter/karpenter-crd --version ${shellQuote(chartVersion(env.version))} -n ${ns}`,
      ),
    );
  } else {
    steps.push(
      `Install the CRDs of ${c.groupVersion} from the release the controller runs (its image tag): the karpenter-crd chart of that version, or pkg/apis/crds at its tag in aws/karpenter-provider-aws.`,
    );
  }
  steps.push(
    commandStep(
      'the controller starts once the API server serves the version',
      `kubectl rollout status -n ${ns} deployment/${shellQuote(env.deploymentName)}`,
    ),
  );
  return steps;
}

/** `machines.karpenter.sh` → `karpenter.sh_machines.yaml`, the file name in pkg/apis/crds. */
function crdFile(name: string): string {
  const dot = name.indexOf('.');
  return `${name.slice(dot + 1)}_${name.slice(0, dot)}.yaml`;
}

/** Chart versions carried a `v` up to v0.34 (`v0.32.3`) and none after (`0.35.0`, `1.8.1`). */
function chartVersion(version: string): string {
  const [major, minor] = version.split('.').map(Number);
  return major === 0 && (minor ?? 0) <= 34 ? `v${version}` : version;
}

function minorOf(version: string | undefined): number {
  return parseVersion(version)?.minor ?? -1;
}
