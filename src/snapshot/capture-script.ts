/**
 * `karpenter-sentinel capture-script`: a POSIX sh script that saves everything `scan --from` reads,
 * one command per file, errors included (`> file 2>&1`). No `set -e`: on a broken cluster some
 * commands fail, and their error text is what the scan reads (a gap, or the diagnosis itself, as
 * for a CRD conversion webhook). Pure: the command prints it.
 */
import { UsageError } from '../domain/errors.ts';
import { shellQuote } from '../domain/shell.ts';
import { PREFLIGHT } from './capture-script-preflight.ts';
import { REDACT_FUNCTION } from './capture-script-redact.ts';
import { isAwsRegion, isEksClusterName } from '../domain/aws.ts';
import { CAPTURED_AT_FILE } from './capture-time.ts';
import { QUEUE_CAPTURE } from './capture-script-queue.ts';

export interface CaptureScriptOptions {
  cluster?: string;
  region?: string;
}

export function checkCaptureScriptOptions(options: CaptureScriptOptions): void {
  if (options.cluster !== undefined && !isEksClusterName(options.cluster)) {
    throw new UsageError('--cluster must be an EKS cluster name (letters, digits, - and _, starting with a letter or digit)');
  }
  if (options.region !== undefined && !isAwsRegion(options.region)) {
    throw new UsageError('--region must be an AWS region such as us-east-1');
  }
}

/** One kubectl command per file: the Kubernetes kinds docs/capture.md#what-to-capture lists. */
const KUBECTL: readonly [file: string, command: string][] = [
  ['pods.json', 'kubectl get pods -A -o json'],
  ['deployments.json', 'kubectl get deployments -A -o json'],
  ['replicasets.json', 'kubectl get replicasets -A -o json'],
  ['nodes.json', 'kubectl get nodes -o json'],
  ['events.json', 'kubectl get events -A -o json'],
  ['aws-auth.json', 'kubectl get configmap aws-auth -n kube-system -o json'],
  ['services.json', 'kubectl get services -A -o json'],
  ['crds.json', 'kubectl get crd nodeclaims.karpenter.sh nodepools.karpenter.sh ec2nodeclasses.karpenter.k8s.aws -o json'],
  ['nodeclaims.json', 'kubectl get nodeclaims.karpenter.sh -o json'],
  ['nodepools.json', 'kubectl get nodepools.karpenter.sh -o json'],
  ['ec2nodeclasses.json', 'kubectl get ec2nodeclasses.karpenter.k8s.aws -o json'],
  ['pdb.json', 'kubectl get pdb -A -o json'],
  ['volumeattachments.json', 'kubectl get volumeattachments -o json'],
  ['webhookconfigurations.json', 'kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations -o json'],
];

/**
 * The EndpointSlices of the Services Karpenter's admission webhooks post to (named for its API
 * groups, with a rule on one, or in a configuration labelled by its chart or as its controller: the
 * set src/domain/admission-webhooks.ts reads live), at most four, in one command: the label selects
 * them by Service name in every namespace (a same-named Service elsewhere costs a few lines; the
 * scan matches the namespace). A configuration's line `@ chart=... name=...` comes before its
 * webhooks'. No webhook of Karpenter's, nothing is run (docs/capture.md "Admission webhooks").
 */
const WEBHOOK_ENDPOINTS = `webhook_services=
labelled=
kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations -o jsonpath='{range .items[*]}@ chart={.metadata.labels.helm\\.sh/chart} name={.metadata.labels.app\\.kubernetes\\.io/name}{"\\n"}{range .webhooks[*]}{.clientConfig.service.name}{" "}{.name}{" "}{.rules[*].apiGroups[*]}{"\\n"}{end}{end}' 2>/dev/null >"$out/webhook-services.tmp"
while read -r service webhook groups; do
  if [ "$service" = @ ]; then
    case "$webhook $groups " in chart=karpenter-* | *" name=karpenter "*) labelled=1 ;; *) labelled= ;; esac
    continue
  fi
  case $service in '' | *[!a-z0-9-]*) continue ;; esac
  [ -n "$labelled" ] || case "$webhook $groups " in *.karpenter.sh" "* | *.karpenter.k8s.aws" "* | *" karpenter.sh "* | *" karpenter.k8s.aws "*) ;; *) continue ;; esac
  case ",$webhook_services," in *",$service,"*) ;; *) webhook_services="\${webhook_services:+$webhook_services,}$service" ;; esac
done <"$out/webhook-services.tmp"
rm -f "$out/webhook-services.tmp"
case $webhook_services in *,*,*,*,*) webhook_services=$(echo "$webhook_services" | cut -d, -f1-4) ;; esac
if [ -n "$webhook_services" ]; then
  kube endpointslices.json kubectl get endpointslices -A -l "kubernetes.io/service-name in ($webhook_services)" -o json
fi`;

const AWS: readonly [file: string, command: string][] = [
  ['cluster.json', 'aws_ eks describe-cluster --name "$cluster"'],
  ['fargate-profiles.json', 'aws_ eks list-fargate-profiles --cluster-name "$cluster"'],
  ['access-entries.json', 'aws_ eks list-access-entries --cluster-name "$cluster"'],
  ['instances.json', 'aws_ ec2 describe-instances --filters "Name=tag:eks:eks-cluster-name,Values=$cluster"'],
  // Unfiltered: a template an instance names that is absent from it is then known gone, not merely
  // untagged (docs/guardrails.md, "Provenance"), as the live scan's lookup by id finds.
  ['launch-templates.json', 'aws_ ec2 describe-launch-templates'],
  ['instance-profiles.json', 'aws_ iam list-instance-profiles'],
  // The region's instance types, for PODS_PENDING_PROLONGED to evaluate NodePool requirements
  // against (docs/capture.md); about 6 MB, read in well under a second.
  ['instance-types.json', 'aws_ ec2 describe-instance-types'],
];

/**
 * The current Linux Spot prices of the Spot types in play (docs/cost.md): Nodes and NodeClaims
 * labelled Spot, and the cluster's Spot instances. Each type is checked before it reaches the
 * command line; none found, nothing is asked.
 */
const SPOT_PRICES = `spot_types=
for type in $(kubectl get nodes -l karpenter.sh/capacity-type=spot -o jsonpath='{.items[*].metadata.labels.node\\.kubernetes\\.io/instance-type}' 2>/dev/null) \\
  $(kubectl get nodeclaims.karpenter.sh -l karpenter.sh/capacity-type=spot -o jsonpath='{.items[*].metadata.labels.node\\.kubernetes\\.io/instance-type}' 2>/dev/null) \\
  $(aws_ ec2 describe-instances --filters "Name=tag:eks:eks-cluster-name,Values=$cluster" Name=instance-lifecycle,Values=spot --query 'Reservations[].Instances[].InstanceType' --output text 2>/dev/null); do
  case $type in *[!a-z0-9.-]* | *.*.* | .* | *.) continue ;; *.*) ;; *) continue ;; esac
  case " $spot_types " in *" $type "*) ;; *) spot_types="$spot_types $type" ;; esac
done
# One word per type, each checked above.
if [ -n "$spot_types" ]; then
  run spot-prices.json aws_ ec2 describe-spot-price-history --instance-types $spot_types --product-descriptions Linux/UNIX --start-time "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
fi`;

export function captureScript(options: CaptureScriptOptions = {}): string {
  checkCaptureScriptOptions(options);
  const cluster = shellQuote(options.cluster ?? '');
  const region = shellQuote(options.region ?? '');
  return `#!/bin/sh
# karpenter-sentinel capture script: saves what 'karpenter-sentinel scan --from' reads, one file
# per command, with the command's errors (> file 2>&1). Commands that fail are expected on a
# broken cluster: their error text is read as a gap, or as the diagnosis. Nothing is changed.
# What may hold a secret (env values, annotations copying a whole object) is left out on its way
# to disk, as 'snapshot' leaves it out: the .tgz can be shared.
#   sh capture.sh [CLUSTER [REGION]]   (default: the values given to capture-script, else the
#                                       current kubectl context's EKS cluster and region)
cluster=\${1:-${cluster}}
region=\${2:-${region}}

aws_() {
  aws --region "$region" --output json "$@"
}

${PREFLIGHT}

out=karpenter-capture-$cluster-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out" || exit 2
failed=0
left_out_values=0
left_out_annotations=0

# run FILE COMMAND...: the command's output and errors go to FILE; the script goes on either way.
run() {
  file=$1
  shift
  if "$@" >"$out/$file" 2>&1; then
    echo "saved $out/$file"
  else
    failed=$((failed + 1))
    echo "saved $out/$file (the command failed; its error is in the file)" >&2
  fi
}

${REDACT_FUNCTION}

# kube FILE COMMAND...: as run, through redact on the way to FILE. The exit codes of both, and
# what redact left out, come back on fd 3.
kube() {
  file=$1
  shift
  status=$({ { "$@" 2>&1 3>&-; echo "ran $?" >&3; } | redact 2>&3 >"$out/$file"; echo "redacted $?" >&3; } 3>&1)
  ran=
  redacted=
  word_before=
  for word in $status; do
    case $word_before:$word in
      *:*[!0-9]* | *:) ;;
      ran:*) ran=$word ;;
      redacted:*) redacted=$word ;;
      env:*) left_out_values=$((left_out_values + word)) ;;
      annotations:*) left_out_annotations=$((left_out_annotations + word)) ;;
    esac
    word_before=$word
  done
  if [ "$redacted" != 0 ]; then
    rm -f "$out/$file"
    failed=$((failed + 1))
    echo "not saved: $out/$file (kubectl's output was not the indented JSON the script can take env values out of)" >&2
  elif [ "$ran" = 0 ]; then
    echo "saved $out/$file"
  else
    failed=$((failed + 1))
    echo "saved $out/$file (the command failed; its error is in the file)" >&2
  fi
}

${KUBECTL.map(([file, command]) => `kube ${file} ${command}`).join('\n')}
# The controller's log: only when kubectl could read it (an error saved as a .log would read as log lines).
namespace=$(kubectl get pods -A -l app.kubernetes.io/name=karpenter -o jsonpath='{.items[0].metadata.namespace}' 2>/dev/null)
case $namespace in '' | *[!a-z0-9-]*) namespace=karpenter ;; esac
if kubectl logs -n "$namespace" -l app.kubernetes.io/name=karpenter --all-containers --prefix --tail=5000 >"$out/karpenter.log" 2>"$out/karpenter-logs.txt"; then
  rm -f "$out/karpenter-logs.txt"
  echo "saved $out/karpenter.log"
else
  rm -f "$out/karpenter.log"
  failed=$((failed + 1))
  echo "saved $out/karpenter-logs.txt (kubectl logs failed; its error is in the file)" >&2
fi
# The log before each controller pod's last restart (why it stopped: OOMKilled, a lost lease, an AWS
# API out of reach). A pod that never restarted has none; that is no failure, and nothing is saved.
: >"$out/karpenter-previous.log"
for pod in $(kubectl get pods -n "$namespace" -l app.kubernetes.io/name=karpenter -o jsonpath='{.items[*].metadata.name}' 2>/dev/null); do
  case $pod in *[!a-z0-9.-]*) continue ;; esac
  if kubectl logs -n "$namespace" "pod/$pod" --all-containers --prefix --previous --tail=5000 >"$out/karpenter-previous.tmp" 2>/dev/null; then
    cat "$out/karpenter-previous.tmp" >>"$out/karpenter-previous.log"
  fi
done
rm -f "$out/karpenter-previous.tmp"
if [ -s "$out/karpenter-previous.log" ]; then echo "saved $out/karpenter-previous.log"; else rm -f "$out/karpenter-previous.log"; fi
${WEBHOOK_ENDPOINTS}

${AWS.map(([file, command]) => `run ${file} ${command}`).join('\n')}
for profile in $(aws_ eks list-fargate-profiles --cluster-name "$cluster" --query 'fargateProfileNames[]' --output text 2>/dev/null); do
  case $profile in
    [0-9A-Za-z]*) case $profile in *[!0-9A-Za-z_-]*) continue ;; esac ;;
    *) continue ;;
  esac
  run "fargate-profile-$profile.json" aws_ eks describe-fargate-profile --cluster-name "$cluster" --fargate-profile-name "$profile"
done
vpc=$(aws_ eks describe-cluster --name "$cluster" --query cluster.resourcesVpcConfig.vpcId --output text 2>/dev/null)
case $vpc in
  vpc-*) run subnets.json aws_ ec2 describe-subnets --filters "Name=vpc-id,Values=$vpc" ;;
  *) run subnets.json aws_ ec2 describe-subnets ;;
esac
${SPOT_PRICES}
${QUEUE_CAPTURE}

echo "left out, as snapshot does: $left_out_values env values, $left_out_annotations annotations copying a whole object"
date -u +%Y-%m-%dT%H:%M:%SZ >"$out/${CAPTURED_AT_FILE}" # when the reads ended: scan --from judges ages at it (docs/capture.md)
tar czf "$out.tgz" "$out" && echo "packed $out.tgz (to share; scan --from reads the folder)"
echo "$failed command(s) failed; their errors were saved and are read as gaps."
echo "next: karpenter-sentinel scan --from $out --cluster $cluster"
`;
}
