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

# The kubectl context, and the EKS cluster it is for, read as the CLI reads it (src/domain/eks-context.ts;
# docs/usage.md, "kubectl plugin and the current context"), first source first: the user's
# aws eks get-token --cluster-name NAME --region R (what aws eks update-kubeconfig writes) or
# aws-iam-authenticator token -i NAME; an ARN-style cluster entry or context name,
# arn:PARTITION:eks:REGION:ACCOUNT:cluster/NAME (aws eks update-kubeconfig --alias leaves the
# entry's); eksctl's NAME.REGION.eksctl.io; for the region last, an https://….REGION.eks.amazonaws.com server.
context=$(kubectl config current-context 2>/dev/null)
if [ -z "$context" ]; then
  echo "capture.sh: kubectl has no current context: choose the cluster's with kubectl config use-context NAME" >&2
  exit 2
fi
context_cluster=$(kubectl config view --minify -o jsonpath='{.contexts[0].context.cluster}' 2>/dev/null)
server=$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}' 2>/dev/null)
exec_command=$(kubectl config view --minify -o jsonpath='{.users[0].user.exec.command}' 2>/dev/null | head -n 1)
# One argument a line (kubectl 1.32 prints {.users[0].user.exec.args} as a JSON array); at most 100.
exec_args=$(kubectl config view --minify -o jsonpath='{range .users[0].user.exec.args[*]}{@}{"\\n"}{end}' 2>/dev/null | head -n 100)
echo "kubectl context: $(visible "$context") (server $(visible "$server"))"
is_region() {
  case $1 in
    *[!a-z0-9-]*) return 1 ;;
    [a-z][a-z]-*-[0-9] | [a-z][a-z]-*-[0-9][0-9]) return 0 ;;
    *) return 1 ;;
  esac
}
has_arg() {
  printf '%s\\n' "$exec_args" | grep -qx -e "$1"
}
# The value of the first of the flags ($1, space-separated) in the exec args: FLAG VALUE or FLAG=VALUE.
arg_value() {
  printf '%s\\n' "$exec_args" | awk -v flags=" $1 " '
    want { print; exit }
    index(flags, " " $0 " ") > 0 { want = 1; next }
    { eq = index($0, "="); if (eq > 1 && index(flags, " " substr($0, 1, eq - 1) " ") > 0) { print substr($0, eq + 1); exit } }'
}
eks_name=
eks_region=
exec_flags=
if has_arg get-token && has_arg eks; then
  exec_flags="--cluster-name --cluster-id"
elif has_arg token; then
  case $exec_command in *aws-iam-authenticator) exec_flags="-i --cluster-id" ;; esac
fi
if [ -n "$exec_flags" ]; then
  eks_name=$(arg_value "$exec_flags")
  case $eks_name in '' | [!0-9A-Za-z]* | *[!0-9A-Za-z_-]*) eks_name= ;; esac
  exec_region=$(arg_value --region)
  is_region "$exec_region" && eks_region=$exec_region
fi
for name in "$context_cluster" "$context"; do
  case $name in
    arn:aws*:eks:*:*:cluster/*)
      arn_name=\${name##*/}
      rest=\${name#arn:*:eks:}
      [ -n "$eks_name" ] || eks_name=$arn_name
      is_region "\${rest%%:*}" && [ -z "$eks_region" ] && eks_region=\${rest%%:*}
      break
      ;;
  esac
done
for name in "$context_cluster" "$context"; do
  case $name in
    *.*.eksctl.io)
      rest=\${name%.eksctl.io}
      rest=\${rest##*@}
      is_region "\${rest##*.}" || continue
      [ -n "$eks_name" ] || eks_name=\${rest%.*}
      [ -n "$eks_region" ] || eks_region=\${rest##*.}
      break
      ;;
  esac
done
if [ -z "$eks_region" ]; then
  case $server in
    https://*.eks.amazonaws.com | https://*.eks.amazonaws.com/ | https://*.eks.amazonaws.com.cn | https://*.eks.amazonaws.com.cn/)
      host=\${server#https://}
      host=\${host%/}
      host=\${host%.cn}
      host=\${host%.eks.amazonaws.com}
      is_region "\${host##*.}" && eks_region=\${host##*.}
      ;;
  esac
fi
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
if ! is_region "$region"; then
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
