/**
 * The capture script's part for Karpenter's interruption queue (docs/capture.md, "Interruption
 * queue"): the files a live scan's reads would give (src/collect/interruption-queue.ts), asked the
 * same way. The setting comes from the controller's Deployment (`--interruption-queue`, else env
 * `INTERRUPTION_QUEUE`), else from the ConfigMap karpenter-global-settings, saved too when it
 * exists. Where shell falls short of src/domain/queue-lookup.ts: the version is not read (the
 * ConfigMap is asked for on any version, and its key used when the Deployment sets nothing; the
 * saved files let the detector apply the version rule), and an env set by `valueFrom` is not
 * recorded as a gap but leaves the queue sources not captured (unknown either way). Every value from the cluster or AWS is checked against what SQS and
 * EventBridge allow before it reaches a command line, and quoted there.
 *
 * Expects `namespace`, `cluster`, `out`, and the functions `run`, `kube` and `aws_`.
 */
import { GLOBAL_SETTINGS_CONFIGMAP, MAX_DESCRIBED_RULES, QUEUE_AGE_WINDOW_SECONDS, QUEUE_ENV } from '../domain/queue-lookup.ts';

export const QUEUE_CAPTURE = `# Karpenter's interruption queue: its setting, the queue, its attributes, the EventBridge rules
# that target it and the age of its oldest message.
controller_jsonpath() {
  kubectl get deployments -n "$namespace" -l app.kubernetes.io/name=karpenter -o jsonpath="$1" 2>/dev/null | head -c 4096
}
# The setting as src/domain/queue-lookup.ts reads it: the container named controller, else the first;
# --interruption-queue or -interruption-queue, the last one with a value (an explicit empty one is
# off); else env ${QUEUE_ENV} (one set from elsewhere, valueFrom, is unknown: nothing is looked up);
# else the ConfigMap. Unlike the live scan, the ConfigMap is read whatever the controller's version.
container=$(controller_jsonpath '{.items[0].spec.template.spec.containers[*].name}')
case " $container " in *" controller "*) container=controller ;; *) container=\${container%% *} ;; esac
case $container in '' | *[!a-z0-9-]*) container=controller ;; esac
in_container='.items[0].spec.template.spec.containers[?(@.name=="'"$container"'")]'
flag=$(controller_jsonpath "{range $in_container"'.args[*]}{@}{"\\n"}{end}' |
  awk 'want { v = $0; seen = 1; want = 0; next } /^--?interruption-queue$/ { want = 1 } /^--?interruption-queue=/ { v = $0; sub(/^--?interruption-queue=/, "", v); seen = 1 } END { if (seen) print "flag:" v }')
queue=\${flag#flag:}
queue_unknown=
if [ -z "$flag" ]; then
  queue=$(controller_jsonpath "{$in_container"'.env[?(@.name=="${QUEUE_ENV}")].value}')
  [ -z "$(controller_jsonpath "{$in_container"'.env[?(@.name=="${QUEUE_ENV}")].valueFrom}')" ] || queue_unknown=1
fi
if kubectl get configmap ${GLOBAL_SETTINGS_CONFIGMAP} -n "$namespace" -o name >/dev/null 2>&1; then
  kube ${GLOBAL_SETTINGS_CONFIGMAP}.json kubectl get configmap ${GLOBAL_SETTINGS_CONFIGMAP} -n "$namespace" -o json
  [ -n "$queue" ] || [ -n "$flag" ] || [ -n "$queue_unknown" ] || queue=$(kubectl get configmap ${GLOBAL_SETTINGS_CONFIGMAP} -n "$namespace" -o jsonpath='{.data.aws\\.interruptionQueueName}' 2>/dev/null | head -c 4096)
fi
# Karpenter wants the name: of an ARN or a URL given instead, the name it ends with is looked up.
case $queue in
  arn:aws*:sqs:*) queue_name=\${queue##*:} ;;
  http://* | https://*) queue_name=\${queue%/}; queue_name=\${queue_name##*/} ;;
  *) queue_name=$queue ;;
esac
is_queue_name() {
  bare=\${1%.fifo}
  case $bare in '' | *[!A-Za-z0-9_-]*) return 1 ;; esac
  [ \${#bare} -le 80 ]
}
queue_url=
if is_queue_name "$queue_name"; then
  # An ARN or URL setting's name goes in the file's name: SQS's answer does not repeat it, and a
  # plain sqs-queue-url.json stands for the setting itself (docs/capture.md).
  if [ "$queue_name" = "$queue" ]; then
    url_file=sqs-queue-url.json
    run sqs-queue-url.json aws_ sqs get-queue-url --queue-name "$queue_name"
  else
    url_file="sqs-queue-url-$queue_name.json"
    run "sqs-queue-url-$queue_name.json" aws_ sqs get-queue-url --queue-name "$queue_name"
  fi
  queue_url=$(sed -n 's/^ *"QueueUrl": "\\([A-Za-z0-9:/._-]*\\)"$/\\1/p' "$out/$url_file" | head -n 1)
fi
# Unset, or no such queue: a queue named after the cluster (Karpenter's getting-started name). Kept
# when SQS answered (its URL, or that it does not exist); any other error is no gap, only a hint lost.
if [ -z "$queue_url" ] && [ -z "$queue_unknown" ] && [ "$queue_name" != "$cluster" ] && is_queue_name "$cluster"; then
  aws_ sqs get-queue-url --queue-name "$cluster" >"$out/sqs-queue-url-$cluster.json" 2>&1
  if grep -q -e '"QueueUrl"' -e 'NonExistentQueue' "$out/sqs-queue-url-$cluster.json"; then
    echo "saved $out/sqs-queue-url-$cluster.json"
  else
    rm -f "$out/sqs-queue-url-$cluster.json"
  fi
fi
case $queue_url in http://* | https://*) ;; *) queue_url= ;; esac
if [ -n "$queue_url" ]; then
  run sqs-queue-attributes.json aws_ sqs get-queue-attributes --queue-url "$queue_url" --attribute-names All
  queue_arn=$(sed -n 's/^ *"QueueArn": "\\(arn:[A-Za-z0-9:._-]*\\)",\\{0,1\\}$/\\1/p' "$out/sqs-queue-attributes.json" | head -n 1)
  if [ -n "$queue_arn" ]; then
    run events-rule-names.json aws_ events list-rule-names-by-target --target-arn "$queue_arn"
    rules=0
    # The names saved above, one quoted string a line in the CLI's JSON: no second call.
    for rule in $(sed -n 's/^ *"\\([A-Za-z0-9._-]*\\)",\\{0,1\\}$/\\1/p' "$out/events-rule-names.json"); do
      case $rule in '' | *[!A-Za-z0-9._-]*) continue ;; esac
      rules=$((rules + 1))
      [ "$rules" -le ${MAX_DESCRIBED_RULES} ] || break
      run "events-rule-$rule.json" aws_ events describe-rule --name "$rule"
    done
  fi
  now=$(date -u +%s)
  run sqs-oldest-message-age.json aws_ cloudwatch get-metric-statistics --namespace AWS/SQS \\
    --metric-name ApproximateAgeOfOldestMessage --dimensions "Name=QueueName,Value=$queue_name" \\
    --statistics Maximum --period ${QUEUE_AGE_WINDOW_SECONDS} --start-time "$((now - ${QUEUE_AGE_WINDOW_SECONDS}))" --end-time "$now"
fi`;
