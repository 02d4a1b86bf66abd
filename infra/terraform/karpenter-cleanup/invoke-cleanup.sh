#!/bin/sh
# Invoke karpenter-sentinel's `cleanup` function until it reports the cluster clean; fail otherwise.
#
# Run by the karpenter-cleanup Terraform module's destroy-time provisioner, or by hand:
#   CLUSTER_NAME=my-cluster FUNCTION_NAME=karpenter-sentinel-prod-cleanup AWS_REGION=eu-west-1 \
#     sh invoke-cleanup.sh
#
# Environment:
#   CLUSTER_NAME       the EKS cluster (required)
#   FUNCTION_NAME      the cleanup function: karpenter-sentinel-<stage>-cleanup, or its ARN (required)
#   AWS_REGION         the function's region (optional: else the AWS CLI's own configuration)
#   NODE_POOLS         comma-separated NodePool names (optional: empty = every NodePool, and then
#                      Karpenter's launch templates and instance profiles too)
#   DELETE_NODE_POOLS  true (default) | false: false leaves NodePools alone, terminates instances only
#   DRY_RUN            false (default) | true: list what would be done, change nothing
#   MAX_ATTEMPTS       invocations before giving up when each one runs out of time (default 8)
#
# Exit 0: the function reported `complete: true`. Exit 1: it reported errors, failed, was still
# not complete after MAX_ATTEMPTS, or could not be invoked; what is left is printed. Every step of
# the function is idempotent, so running this again (or `terraform destroy` again) carries on.
#
# Only POSIX sh and utilities plus the AWS CLI: Terraform runners (CI images, Windows' Git Bash,
# Alpine) often lack jq, and a python3/node fallback would be a second parser whose behaviour only
# some machines test. The function's result is our own JSON.stringify output; the awk reader below
# parses JSON properly (escapes included), so no key order or message text can confuse it.
set -eu

program=karpenter-cleanup

fail() {
  printf '%s: %s\n' "$program" "$1" >&2
  exit 1
}

# --- inputs ----------------------------------------------------------------------------------------

CLUSTER_NAME=${CLUSTER_NAME:-}
FUNCTION_NAME=${FUNCTION_NAME:-}
AWS_REGION=${AWS_REGION:-}
NODE_POOLS=${NODE_POOLS:-}
DELETE_NODE_POOLS=${DELETE_NODE_POOLS:-true}
DRY_RUN=${DRY_RUN:-false}
MAX_ATTEMPTS=${MAX_ATTEMPTS:-8}

# Names are checked, not escaped: they go into the JSON payload verbatim, so anything a cluster or
# NodePool cannot be called is refused before AWS is called. (Explicit character lists: ranges in
# bracket expressions depend on the locale.)
lower='abcdefghijklmnopqrstuvwxyz'
upper='ABCDEFGHIJKLMNOPQRSTUVWXYZ'
digits='0123456789'

[ -n "$CLUSTER_NAME" ] || fail 'CLUSTER_NAME is not set: the EKS cluster to clean up'
case $CLUSTER_NAME in
  [!"$lower$upper$digits"]* | *[!"$lower$upper$digits"_-]*)
    fail "CLUSTER_NAME must be an EKS cluster name (letters, digits, - and _, a letter or digit first), got '$CLUSTER_NAME'" ;;
esac
[ "${#CLUSTER_NAME}" -le 100 ] || fail 'CLUSTER_NAME is longer than 100 characters'

[ -n "$FUNCTION_NAME" ] || fail 'FUNCTION_NAME is not set: the cleanup function, e.g. karpenter-sentinel-prod-cleanup'
case $FUNCTION_NAME in
  *[!"$lower$upper$digits"_:.\$-]*) fail "FUNCTION_NAME must be a Lambda function name or ARN, got '$FUNCTION_NAME'" ;;
esac

case $MAX_ATTEMPTS in
  '' | *[!"$digits"]*) fail "MAX_ATTEMPTS must be a whole number >= 1, got '$MAX_ATTEMPTS'" ;;
esac
[ "$MAX_ATTEMPTS" -ge 1 ] || fail "MAX_ATTEMPTS must be a whole number >= 1, got '$MAX_ATTEMPTS'"

case $DRY_RUN in
  true | false) ;;
  *) fail "DRY_RUN must be true or false, got '$DRY_RUN'" ;;
esac
case $DELETE_NODE_POOLS in
  true | false) ;;
  *) fail "DELETE_NODE_POOLS must be true or false, got '$DELETE_NODE_POOLS'" ;;
esac

# NODE_POOLS "a, b,c" -> ["a","b","c"]; each a DNS-1123 subdomain, as Kubernetes names are.
node_pools_json=
set -f # no globbing while the list is split on commas
old_ifs=$IFS
IFS=,
for pool in $NODE_POOLS; do
  IFS=$old_ifs
  pool=$(printf '%s' "$pool" | tr -d ' ')
  [ -n "$pool" ] || continue
  case $pool in
    [!"$lower$digits"]* | *[!"$lower$digits"] | *[!"$lower$digits".-]* | *..* | *.-* | *-.*)
      fail "NODE_POOLS: '$pool' is not a NodePool name (lowercase letters, digits, - and .)" ;;
  esac
  [ "${#pool}" -le 253 ] || fail "NODE_POOLS: '$pool' is longer than 253 characters"
  node_pools_json="$node_pools_json${node_pools_json:+,}\"$pool\""
done
IFS=$old_ifs
set +f

payload="{\"clusterName\":\"$CLUSTER_NAME\",\"dryRun\":$DRY_RUN,\"deleteNodePools\":$DELETE_NODE_POOLS"
# Absent = every NodePool (the function refuses an empty list).
[ -z "$node_pools_json" ] || payload="$payload,\"nodePools\":[$node_pools_json]"
payload="$payload}"

command -v aws >/dev/null 2>&1 || fail 'the AWS CLI (aws) is not on PATH'

# --- the AWS CLI's arguments -------------------------------------------------------------------------

# A private directory for the response (mkdir fails rather than follow someone else's file).
umask 077
work_dir="${TMPDIR:-/tmp}/$program.$$"
mkdir "$work_dir" || fail "cannot create $work_dir"
trap 'rm -rf "$work_dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
response="$work_dir/response.json"
flat="$work_dir/response.flat"

# The positional parameters become the invoke's arguments (sh has no arrays).
set -- lambda invoke --function-name "$FUNCTION_NAME"
[ -z "$AWS_REGION" ] || set -- "$@" --region "$AWS_REGION"
# CLI v2 reads --payload as base64 unless told otherwise; v1 has no such option (and reads it raw).
case $(aws --version 2>&1) in
  aws-cli/1.*) ;;
  *) set -- "$@" --cli-binary-format raw-in-base64-out ;;
esac
# The CLI's default 60 s read timeout is far shorter than the function's 15 minutes: the CLI would
# give up and retry while the first invocation still runs. Not 0 (no timeout): a connection dropped
# on the way (a NAT gateway drops idle ones after 350 s) would then hang the destroy for ever. 960 s
# outlasts any invocation (900 s at most, plus start-up), so a retry never overlaps a running one.
set -- "$@" --cli-read-timeout 960 --payload "$payload" --query FunctionError --output text "$response"

# --- reading the result ------------------------------------------------------------------------------

# JSON -> one "path<TAB>value" line per scalar: complete<TAB>true, errors.0.resource<TAB>i-0abc...
# Strings are unescaped; control characters (\n, \t, \uXXXX) become spaces to keep lines whole.
flatten() {
  LC_ALL=C awk '
    { text = text $0 "\n" }
    END {
      n = length(text); pos = 1
      if (!value("")) exit 2
      skip()
      if (pos <= n) exit 2
    }
    function skip() { while (pos <= n && index(" \t\r\n", substr(text, pos, 1)) > 0) pos++ }
    function emit(path, v) { printf "%s\t%s\n", path, v }
    function join(path, key) { return path == "" ? key : path "." key }
    function value(path,   c, lit) {
      skip(); c = substr(text, pos, 1)
      if (c == "{") return object(path)
      if (c == "[") return array(path)
      if (c == "\"") { if (!string()) return 0; emit(path, str); return 1 }
      lit = ""
      while (pos <= n && index("-+.0123456789eEtruefalsn", substr(text, pos, 1)) > 0) { lit = lit substr(text, pos, 1); pos++ }
      if (lit == "") return 0
      emit(path, lit); return 1
    }
    function object(path,   key, c) {
      pos++; skip()
      if (substr(text, pos, 1) == "}") { pos++; return 1 }
      while (1) {
        skip()
        if (substr(text, pos, 1) != "\"" || !string()) return 0
        key = str; skip()
        if (substr(text, pos, 1) != ":") return 0
        pos++
        if (!value(join(path, key))) return 0
        skip(); c = substr(text, pos, 1); pos++
        if (c == "}") return 1
        if (c != ",") return 0
      }
    }
    function array(path,   i, c) {
      pos++; skip()
      if (substr(text, pos, 1) == "]") { pos++; return 1 }
      for (i = 0; ; i++) {
        if (!value(join(path, i))) return 0
        skip(); c = substr(text, pos, 1); pos++
        if (c == "]") return 1
        if (c != ",") return 0
      }
    }
    # Reads the string at pos into the global str.
    function string(   c, e) {
      str = ""; pos++
      while (pos <= n) {
        c = substr(text, pos, 1); pos++
        if (c == "\"") return 1
        if (c == "\n" || c == "\t" || c == "\r") c = " "
        if (c == "\\") {
          e = substr(text, pos, 1); pos++
          if (e == "u") { pos += 4; c = " " }
          else if (e == "\"" || e == "\\" || e == "/") c = e
          else c = " "
        }
        str = str c
      }
      return 0
    }
  ' "$1"
}

# The value at one path, e.g. `field complete`.
field() {
  awk -v key="$1" 'BEGIN { FS = "\t" } $1 == key { print substr($0, length(key) + 2); exit }' "$flat"
}

# How many items a list holds (strings or objects), e.g. `count instancesTerminated`, `count errors`.
count() {
  awk -v key="$1" 'BEGIN { FS = "\t"; n = 0 }
    index($1, key ".") == 1 {
      i = substr($1, length(key) + 2); sub(/\..*/, "", i)
      if (i ~ /^[0-9]+$/ && !(i in seen)) { seen[i] = 1; n++ }
    }
    END { print n }' "$flat"
}

# A list's items on one line, space-separated.
items() {
  awk -v key="$1" 'BEGIN { FS = "\t" } index($1, key ".") == 1 && substr($1, length(key) + 2) ~ /^[0-9]+$/ { printf "%s%s", sep, substr($0, length($1) + 2); sep = " " } END { if (sep != "") print "" }' "$flat"
}

# The start of a response that is not what we expected, for the message.
excerpt() {
  cut -c 1-300 "$1" | head -n 3
}

# errors[] as "  - [step] resource: message" lines; "  - [step] message" when the message names the resource
# already (`TerminateInstances i-0abc failed: ...`), so no id shows twice.
print_errors() {
  awk 'BEGIN { FS = "\t" }
    $1 ~ /^errors\.[0-9]+\.(step|resource|message)$/ {
      split($1, p, "."); i = p[2] + 0; v = substr($0, length($1) + 2)
      if (i + 1 > n) n = i + 1
      if (p[3] == "step") step[i] = v; else if (p[3] == "resource") res[i] = v; else msg[i] = v
    }
    END {
      for (i = 0; i < n; i++) printf "  - [%s] %s%s\n", step[i], (res[i] == "" || index(msg[i], res[i]) > 0 ? "" : res[i] ": "), msg[i]
    }' "$flat"
}

# stepsNotStarted[] (what the cleanup held back until what it depends on is gone) as "  - [step] not started: reason" lines.
print_not_started() {
  awk 'BEGIN { FS = "\t" }
    $1 ~ /^stepsNotStarted\.[0-9]+\.(step|reason)$/ {
      split($1, p, "."); i = p[2] + 0; v = substr($0, length($1) + 2)
      if (i + 1 > n) n = i + 1
      if (p[3] == "step") step[i] = v; else reason[i] = v
    }
    END { for (i = 0; i < n; i++) printf "  - [%s] not started: %s\n", step[i], reason[i] }' "$flat"
}

# notes[] (what the caller must know though nothing failed: no such cluster in the region) as
# "karpenter-cleanup: note: ..." lines, before the lists: the destroy goes on, but it is not hidden.
print_notes() {
  awk -v program="$program" 'BEGIN { FS = "\t" } $1 ~ /^notes\.[0-9]+$/ { printf "%s: note: %s\n", program, substr($0, length($1) + 2) }' "$flat"
}

# Counts over every invocation: each reports only what it did itself.
total_pools=0
total_instances=0
total_templates=0
total_profiles=0

# One line per list; in a dry run what would be done, else what was done by this invocation.
print_lists() {
  for list in nodePoolsDeleted instancesTerminated launchTemplatesDeleted instanceProfilesDeleted; do
    listed=$(items "$list")
    [ -z "$listed" ] || printf '  %s (%s): %s\n' "$list" "$(count "$list")" "$listed"
  done
}

# --- invoke until complete ---------------------------------------------------------------------------

mode=apply
[ "$DRY_RUN" = false ] || mode='dry run'
attempt=1
while :; do
  printf '%s: cleaning up Karpenter resources of cluster %s (%s) with %s, invocation %s of at most %s\n' \
    "$program" "$CLUSTER_NAME" "$mode" "$FUNCTION_NAME" "$attempt" "$MAX_ATTEMPTS"
  rm -f "$response" "$flat"

  # The CLI prints its own error (access denied, function not found) on stderr.
  if ! function_error=$(aws "$@"); then
    fail "aws lambda invoke $FUNCTION_NAME failed (see the AWS CLI's message above)"
  fi
  [ -f "$response" ] || fail "aws lambda invoke wrote no response to $response"
  flatten "$response" >"$flat" || fail "the function's response is not JSON: $(excerpt "$response")"

  case $function_error in
    '' | None) ;;
    *)
      # The function threw (an invalid request) or was killed (timeout, out of memory). Lambda's
      # timeout error may come without an errorType; then only the message is shown.
      error_type=$(field errorType)
      error_message=$(field errorMessage)
      why=${error_message:-$(excerpt "$response")}
      [ -z "$error_type" ] || why="$error_type: $why"
      case $error_type:$error_message in
        *'Task timed out'* | Sandbox.Timedout:*) why="$why; run terraform destroy again: the cleanup carries on" ;;
        CleanupRequestError:*) why="$why; fix the module's inputs (terraform apply), then destroy again" ;;
      esac
      fail "the cleanup function failed ($function_error): $why"
      ;;
  esac

  complete=$(field complete)
  case $complete in
    true | false) ;;
    *) fail "unexpected response from $FUNCTION_NAME (no \"complete\"): $(excerpt "$response")" ;;
  esac

  print_notes
  print_lists
  total_pools=$((total_pools + $(count nodePoolsDeleted)))
  total_instances=$((total_instances + $(count instancesTerminated)))
  total_templates=$((total_templates + $(count launchTemplatesDeleted)))
  total_profiles=$((total_profiles + $(count instanceProfilesDeleted)))

  errors=$(count errors)
  not_started=$(count stepsNotStarted)
  if [ "$errors" -gt 0 ] || [ "$not_started" -gt 0 ]; then
    {
      printf '%s: cleanup of cluster %s FAILED with %s error(s):\n' "$program" "$CLUSTER_NAME" "$errors"
      print_errors
      print_not_started
      printf '%s: fix the cause and run again (terraform destroy runs this hook again); completed steps are not repeated.\n' "$program"
    } >&2
    exit 1
  fi

  if [ "$complete" = true ]; then
    if [ "$DRY_RUN" = true ]; then
      printf '%s: dry run of cluster %s complete: would delete %s NodePool(s), terminate %s instance(s), delete %s launch template(s) and %s instance profile(s)\n' \
        "$program" "$CLUSTER_NAME" "$total_pools" "$total_instances" "$total_templates" "$total_profiles"
    else
      printf '%s: cluster %s is clean after %s invocation(s): deleted %s NodePool(s), terminated %s instance(s), deleted %s launch template(s) and %s instance profile(s)\n' \
        "$program" "$CLUSTER_NAME" "$attempt" "$total_pools" "$total_instances" "$total_templates" "$total_profiles"
    fi
    exit 0
  fi

  stopped_at=$(field stoppedAt)
  if [ "$attempt" -ge "$MAX_ATTEMPTS" ]; then
    fail "cleanup of cluster $CLUSTER_NAME is still not complete after $MAX_ATTEMPTS invocation(s) (stopped at step ${stopped_at:-unknown}); run again to carry on"
  fi
  printf '%s: the function ran out of time at step %s; invoking again to carry on\n' "$program" "${stopped_at:-unknown}"
  attempt=$((attempt + 1))
done
