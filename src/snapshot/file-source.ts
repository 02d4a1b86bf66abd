import type { SourceName } from '../domain/snapshot.ts';
import { sourceNamedByFile } from './kube-objects.ts';

/**
 * The names the capture recipe and `capture-script` give AWS CLI outputs and single objects, and
 * the usual short forms: what a file that could not be read was meant to hold.
 */
const MEANT_BY_NAME: Readonly<Record<string, SourceName>> = {
  'aws-auth': 'configmaps',
  'karpenter-global-settings': 'configmaps',
  svc: 'services',
  crd: 'crds',
  cluster: 'cluster',
  'describe-cluster': 'cluster',
  instances: 'instances',
  'describe-instances': 'instances',
  'fargate-profiles': 'fargateprofiles',
  fargateprofiles: 'fargateprofiles',
  'access-entries': 'accessentries',
  accessentries: 'accessentries',
  'launch-templates': 'launchtemplates',
  launchtemplates: 'launchtemplates',
  'instance-profiles': 'instanceprofiles',
  'karpenter-logs': 'logs',
  instanceprofiles: 'instanceprofiles',
  subnets: 'subnets',
  'describe-subnets': 'subnets',
  'instance-types': 'instancetypes',
  instancetypes: 'instancetypes',
  'describe-instance-types': 'instancetypes',
  'spot-prices': 'spotprices',
  spotprices: 'spotprices',
  'describe-spot-price-history': 'spotprices',
  'sqs-queue-url': 'interruptionqueue',
  'sqs-queue-attributes': 'interruptionqueue',
  'events-rule-names': 'queuerules',
  'sqs-oldest-message-age': 'queueage',
};

const PREFIXES: readonly [prefix: string, source: SourceName][] = [
  ['fargate-', 'fargateprofiles'],
  ['access-entr', 'accessentries'],
  ['events-rule-', 'queuerules'],
  // The lookup of a named queue (an ARN or URL setting's name, the queue named after the cluster).
  ['sqs-queue-url-', 'interruptionqueue'],
];

/**
 * The source a capture file was meant to hold, from its name alone (`nodeclaims.json`,
 * `fargate-profiles.json`, `karpenter.log`, `aws-auth.yaml.gz`): used only for a file that could
 * not be read, to name the gap it leaves. Undefined when the name says nothing.
 */
export function sourceMeantByFile(fileName: string): SourceName | undefined {
  const name = fileName.toLowerCase().replace(/\.(?:gz|gzip)$/, '');
  if (name.endsWith('.log')) return 'logs';
  const base = name.replace(/\.(?:json|ya?ml|txt|out)$/, '');
  const named = sourceNamedByFile(base) ?? (Object.hasOwn(MEANT_BY_NAME, base) ? MEANT_BY_NAME[base] : undefined);
  return named ?? PREFIXES.find(([prefix]) => base.startsWith(prefix))?.[1];
}

/**
 * The command that captures each source, as the capture recipe and `capture-script` run it
 * (docs/capture.md): a saved error then reads `aws ec2 describe-instances failed: You must specify
 * a region. ...`, naming what failed in the user's terms.
 */
const COMMAND_OF_SOURCE: Readonly<Record<SourceName, string>> = {
  pods: 'kubectl get pods',
  deployments: 'kubectl get deployments',
  replicasets: 'kubectl get replicasets',
  nodes: 'kubectl get nodes',
  events: 'kubectl get events',
  configmaps: 'kubectl get configmap aws-auth',
  services: 'kubectl get services',
  crds: 'kubectl get crd',
  nodeclaims: 'kubectl get nodeclaims',
  nodepools: 'kubectl get nodepools',
  ec2nodeclasses: 'kubectl get ec2nodeclasses',
  pdbs: 'kubectl get pdb',
  volumeattachments: 'kubectl get volumeattachments',
  logs: 'kubectl logs',
  cluster: 'aws eks describe-cluster',
  instances: 'aws ec2 describe-instances',
  fargateprofiles: 'aws eks list-fargate-profiles',
  accessentries: 'aws eks list-access-entries',
  launchtemplates: 'aws ec2 describe-launch-templates',
  instanceprofiles: 'aws iam list-instance-profiles',
  subnets: 'aws ec2 describe-subnets',
  instancetypes: 'aws ec2 describe-instance-types',
  spotprices: 'aws ec2 describe-spot-price-history',
  webhookconfigurations: 'kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations',
  endpoints: 'kubectl get endpointslices',
  interruptionqueue: 'aws sqs get-queue-url',
  queuerules: 'aws events list-rule-names-by-target',
  queueage: 'aws cloudwatch get-metric-statistics',
};

/** One object's file (`fargate-profile-NAME.json`, `access-entry-NAME.json`) was a describe. */
const DESCRIBE_PREFIXES: readonly [prefix: string, command: string][] = [
  ['fargate-profile-', 'aws eks describe-fargate-profile'],
  ['access-entry-', 'aws eks describe-access-entry'],
  ['sqs-queue-attributes', 'aws sqs get-queue-attributes'],
  ['events-rule-names', 'aws events list-rule-names-by-target'],
  ['events-rule-', 'aws events describe-rule'],
  ['karpenter-global-settings', 'kubectl get configmap karpenter-global-settings'],
];

/** The command that wrote a capture file, from its name as sourceMeantByFile reads it; undefined when the name says nothing. */
export function commandMeantByFile(fileName: string): string | undefined {
  const source = sourceMeantByFile(fileName);
  if (!source) return undefined;
  const base = fileName.toLowerCase();
  return DESCRIBE_PREFIXES.find(([prefix]) => base.startsWith(prefix))?.[1] ?? COMMAND_OF_SOURCE[source];
}
