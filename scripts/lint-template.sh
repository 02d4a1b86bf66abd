#!/usr/bin/env bash
# cfn-lint on the packaged CloudFormation template: as `npm run package` wrote it (no optional
# feature), and packaged again with every optional feature on, once with Slack through an SSM
# parameter and once through a Secrets Manager secret (each deploys slack-notify and its
# resources; alertEmail the e-mail subscription; clusters and scanWatchdogEnabled the scan settings).
# Fails on error-level rules; warnings are printed, not fatal. Offline, no AWS credentials.
#
#   npm run package && scripts/lint-template.sh
#
# Needs cfn-lint (pip install cfn-lint).
set -euo pipefail
cd "$(dirname "$0")/.."

TEMPLATE=cloudformation-template-update-stack.json
if ! command -v cfn-lint > /dev/null; then
  echo "lint-template: cfn-lint not found: pip install cfn-lint" >&2
  exit 2
fi
if [ ! -f ".serverless/$TEMPLATE" ]; then
  echo "lint-template: .serverless/$TEMPLATE not found: run npm run package first" >&2
  exit 2
fi

# Exit non-zero on errors only. cfn-lint before --non-zero-exit-code: bit 2 of its exit code means errors.
if cfn-lint --help 2>/dev/null | grep -q -- '--non-zero-exit-code'; then
  lint() { cfn-lint --non-zero-exit-code error -- "$@"; }
else
  lint() {
    local rc=0
    cfn-lint -- "$@" || rc=$?
    (( rc & 3 )) && return 1 # 1: fatal, 2: errors
    return 0
  }
fi

work=$(mktemp -d)
# osls removes .serverless/ whenever it packages, even elsewhere: what npm run package wrote is put back.
cp -a .serverless "$work/default"
restore() {
  rm -rf .serverless
  mv "$work/default" .serverless
  rm -rf "$work"
}
trap restore EXIT
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_PROFILE

COMMON=(--param="alertEmail=ops@example.com" --param="clusters=prod-a,prod-b" --param="scanWatchdogEnabled=true")
declare -A VARIANTS=(
  [slack-parameter]="--param=slackWebhookParameter=/karpenter-sentinel/slack-webhook"
  [slack-secret]="--param=slackWebhookSecret=karpenter-sentinel/slack-webhook"
)

status=0
echo "cfn-lint $(cfn-lint --version | awk '{print $2}'): default"
lint "$work/default/$TEMPLATE" || status=1
for name in slack-parameter slack-secret; do
  # osls reads its bundles from dist/ (npm run package built them) and writes the variant elsewhere.
  npx --no-install osls package --package "$work/$name" "${COMMON[@]}" "${VARIANTS[$name]}" > "$work/$name.log" 2>&1 || {
    cat "$work/$name.log" >&2
    echo "lint-template: packaging $name failed" >&2
    exit 1
  }
  echo "cfn-lint: $name"
  lint "$work/$name/$TEMPLATE" || status=1
done

if [ "$status" -ne 0 ]; then
  echo "lint-template: cfn-lint found errors (above)" >&2
  exit 1
fi
echo "template lint: ok (no errors)"
