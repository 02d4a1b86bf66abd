/**
 * The capture script's part for Karpenter's interruption queue (docs/capture.md, "Interruption
 * queue"): the files a live scan's reads would give (src/collect/interruption-queue.ts), asked the
 * same way. The setting comes from the controller's Deployment (`--interruption-queue`, else env
 * `INTERRUPTION_QUEUE`), else, before v0.33, from the ConfigMap karpenter-global-settings, saved
 * too when it exists. Every value from the cluster or AWS is checked against what SQS and
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
queue=$(controller_jsonpath '{range .items[0].spec.template.spec.containers[?(@.name=="controller")].args[*]}{@}{"\\n"}{end}' |
  awk 'want { v = $0; want = 0; next } $0 == "--interruption-queue" { want = 1 } /^--interruption-queue=/ { v = substr($0, 22) } END { print v }')
[ -n "$queue" ] || queue=$(controller_jsonpath '{.items[0].spec.template.spec.containers[?(@.name=="controller")].env[?(@.name=="${QUEUE_ENV}")].value}')
if kubectl get configmap ${GLOBAL_SETTINGS_CONFIGMAP} -n "$namespace" -o name >/dev/null 2>&1; then
  kube ${GLOBAL_SETTINGS_CONFIGMAP}.json kubectl get configmap ${GLOBAL_SETTINGS_CONFIGMAP} -n "$namespace" -o json
  [ -n "$queue" ] || queue=$(kubectl get configmap ${GLOBAL_SETTINGS_CONFIGMAP} -n "$namespace" -o jsonpath='{.data.aws\\.interruptionQueueName}' 2>/dev/null | head -c 4096)
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
  run sqs-queue-url.json aws_ sqs get-queue-url --queue-name "$queue_name"
  queue_url=$(sed -n 's/^ *"QueueUrl": "\\([A-Za-z0-9:/._-]*\\)"$/\\1/p' "$out/sqs-queue-url.json" | head -n 1)
fi
# Unset, or no such queue: a queue named after the cluster (Karpenter's getting-started name). Kept
# when SQS answered (its URL, or that it does not exist); any other error is no gap, only a hint lost.
if [ -z "$queue_url" ] && [ "$queue_name" != "$cluster" ] && is_queue_name "$cluster"; then
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
    for rule in $(aws_ events list-rule-names-by-target --target-arn "$queue_arn" --query 'RuleNames[]' --output text 2>/dev/null); do
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
