/**
 * The capture script's first part: which cluster kubectl reads and which region the AWS CLI asks,
 * worked out, checked and printed before anything is saved (docs/capture.md, "What the script
 * checks first"). Without a region every aws file would hold `You must specify a region.`; with
 * the wrong kubectl context the folder named for one cluster would hold another's objects. Each
 * refusal is one line on stderr and exit 2.
 *
 * Expects `cluster` and `region` (possibly empty) and the function `aws_`; leaves both set and
 * valid. Values from the kubeconfig are printed through `visible` (printable ASCII, 200 at most).
 */
export const PREFLIGHT = `visible() {
  printf '%s' "$1" | tr -c '[:print:]' '?' | cut -c 1-200
}
lower() {
  printf '%s' "$1" | tr 'A-Z' 'a-z'
}
command -v awk >/dev/null 2>&1 || { echo "capture.sh: needs awk, to leave secrets out of what it saves" >&2; exit 2; }

# The kubectl context, and the EKS cluster its name (or its cluster entry's, as aws eks
# update-kubeconfig --alias leaves it) says: arn:PARTITION:eks:REGION:ACCOUNT:cluster/NAME.
context=$(kubectl config current-context 2>/dev/null)
if [ -z "$context" ]; then
  echo "capture.sh: kubectl has no current context: choose the cluster's with kubectl config use-context NAME" >&2
  exit 2
fi
context_cluster=$(kubectl config view --minify -o jsonpath='{.contexts[0].context.cluster}' 2>/dev/null)
server=$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}' 2>/dev/null)
echo "kubectl context: $(visible "$context") (server $(visible "$server"))"
eks_name=
eks_region=
for name in "$context" "$context_cluster"; do
  case $name in
    arn:aws*:eks:*:*:cluster/*)
      eks_name=\${name##*/}
      rest=\${name#arn:*:eks:}
      eks_region=\${rest%%:*}
      break
      ;;
  esac
done
if [ -z "$cluster" ]; then
  cluster=$eks_name
  cluster_from="from the kubectl context"
elif [ -n "$eks_name" ] && [ "$eks_name" != "$cluster" ]; then
  echo "capture.sh: kubectl's current context is EKS cluster $(visible "$eks_name"), not $cluster: switch with kubectl config use-context, or capture that one with sh capture.sh $(visible "$eks_name")" >&2
  exit 2
else
  cluster_from="as given"
fi
case $cluster in
  '')
    echo "capture.sh: the kubectl context names no EKS cluster: give its name, sh capture.sh CLUSTER [REGION]" >&2
    exit 2
    ;;
  [!0-9A-Za-z]* | *[!0-9A-Za-z_-]*)
    echo "capture.sh: not an EKS cluster name: $(visible "$cluster")" >&2
    exit 2
    ;;
esac

# The region, as the AWS CLI would choose it, but the context's first: an ARN says where the cluster is.
if [ -n "$region" ]; then
  region_from="as given"
  if [ -n "$eks_region" ] && [ "$eks_region" != "$region" ]; then
    echo "capture.sh: kubectl's current context is cluster $cluster in $(visible "$eks_region"), not in $region: give $(visible "$eks_region"), or switch with kubectl config use-context" >&2
    exit 2
  fi
elif [ -n "$eks_region" ]; then
  region=$eks_region
  region_from="from the kubectl context"
elif [ -n "\${AWS_REGION:-}" ]; then
  region=$AWS_REGION
  region_from="from AWS_REGION"
elif [ -n "\${AWS_DEFAULT_REGION:-}" ]; then
  region=$AWS_DEFAULT_REGION
  region_from="from AWS_DEFAULT_REGION"
else
  region=$(aws configure get region 2>/dev/null)
  region_from="from aws configure get region"
fi
if [ -z "$region" ]; then
  echo "capture.sh: no AWS region: give it (sh capture.sh $cluster REGION), set AWS_REGION, or run aws configure set region REGION" >&2
  exit 2
fi
case $region in
  *[!a-z0-9-]*) region_ok= ;;
  [a-z][a-z]-*-[0-9] | [a-z][a-z]-*-[0-9][0-9]) region_ok=1 ;;
  *) region_ok= ;;
esac
if [ -z "$region_ok" ]; then
  echo "capture.sh: not an AWS region: $(visible "$region") ($region_from)" >&2
  exit 2
fi
echo "EKS cluster: $cluster ($cluster_from)"
echo "AWS region: $region ($region_from)"

# The cluster's endpoint against kubectl's server: the same cluster, or another EKS cluster (refused),
# or a proxy or tunnel in between (cannot tell: said, and the scan warns when the Karpenter
# controller is configured for another cluster).
endpoint=$(aws_ eks describe-cluster --name "$cluster" --query cluster.endpoint --output text 2>/dev/null)
case $endpoint in
  https://*)
    if [ "$(lower "\${endpoint%/}")" = "$(lower "\${server%/}")" ]; then
      echo "checked: kubectl's server is the endpoint of cluster $cluster"
    else
      case $server in
        https://*.eks.amazonaws.com | https://*.eks.amazonaws.com/ | https://*.eks.amazonaws.com.cn | https://*.eks.amazonaws.com.cn/)
          echo "capture.sh: kubectl's server $(visible "$server") is not the endpoint of cluster $cluster ($(visible "$endpoint")) but another EKS cluster's: switch with kubectl config use-context" >&2
          exit 2
          ;;
        *) echo "warning: kubectl reaches $(visible "$server"), not the endpoint of cluster $cluster ($(visible "$endpoint")): make sure the context is that cluster's" >&2 ;;
      esac
    fi
    ;;
  *) echo "warning: could not read the endpoint of cluster $cluster (aws eks describe-cluster, saved in cluster.json): kubectl's context is not checked against it" >&2 ;;
esac`;
