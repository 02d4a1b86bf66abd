import type { SourceName } from '../domain/snapshot.ts';
import { sourceNamedByFile } from './kube-objects.ts';

/**
 * The names the capture recipe and `capture-script` give AWS CLI outputs and single objects, and
 * the usual short forms: what a file that could not be read was meant to hold.
 */
const MEANT_BY_NAME: Readonly<Record<string, SourceName>> = {
  'aws-auth': 'configmaps',
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
};

const PREFIXES: readonly [prefix: string, source: SourceName][] = [
  ['fargate-', 'fargateprofiles'],
  ['access-entr', 'accessentries'],
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
