/**
 * The capture script's `redact` filter: what `snapshot` leaves out of a capture (write/redact.ts),
 * left out of `kubectl get -o json` on its way to the file, so that no env value ever reaches the
 * disk or the .tgz meant to be shared (docs/capture.md, "What is left out").
 *
 * awk, because every system with a POSIX sh has it; jq and karpenter-sentinel may be missing where
 * the script runs. awk does not parse JSON, so the filter relies on how kubectl prints it: indented,
 * one key per line, each env variable an object in an `"env": [` array, its keys 8 columns deeper
 * than the array (kubectl 1.32, checked against it in test/simulator/capture-script-redact.test.ts).
 * Anything else that could hide a value (JSON on one line, a `"value"` at another depth) makes
 * the filter fail closed, exit 3: the script then deletes the file rather than keep it unredacted.
 */
import { DROPPED_ANNOTATIONS, KEPT_ENV_VALUES } from './write/redact.ts';

/** Names that can be written inside an awk string in a single-quoted sh word as they are. */
const PLAIN = /^[A-Za-z0-9_./-]+$/;

function awkSet(variable: string, names: readonly string[]): string {
  return names
    .map((name) => {
      if (!PLAIN.test(name)) throw new Error(`cannot write ${name} into the capture script's awk program`);
      return `  ${variable}["${name}"] = 1`;
    })
    .join('\n');
}

/**
 * A sh function: `redact` reads kubectl's JSON (with its stderr, `2>&1`) on stdin and prints it
 * without the env values and annotations snapshot leaves out; the JSON stays valid (a member left
 * out last takes the comma of the one before). On stderr, one line `env N annotations M`: how
 * many it left out. Exit 3 when the input is not in the form it can redact.
 */
export const REDACT_FUNCTION = `redact() {
  awk '
BEGIN {
  env = -1
${awkSet('kept', KEPT_ENV_VALUES)}
${awkSet('dropped', DROPPED_ANNOTATIONS)}
}
function keep(line) {
  if (holding) print held
  held = line
  holding = 1
}
function leave_out(line) {
  if (line !~ /,$/ && holding) sub(/,$/, "", held)
}
function unsafe() {
  failed = 1
  exit
}
{
  line = $0
  match(line, /^ */)
  depth = RLENGTH
  rest = substr(line, depth + 1)
  if (env >= 0 && depth <= env) env = -1
  if (env >= 0) {
    if (depth == env + 4 && rest == "{") name = ""
    if (depth == env + 8 && rest ~ /^"name": "/) {
      name = substr(rest, 10)
      sub(/",?$/, "", name)
    }
    if (rest ~ /^"value":/) {
      if (depth != env + 8 || rest !~ /^"value": ".*",?$/) unsafe()
      if (!(name in kept)) {
        leave_out(line)
        values++
        next
      }
    }
    keep(line)
    next
  }
  if (rest ~ /^"env": \\[$/) env = depth
  else if (index(rest, "\\"env\\":") > 1) unsafe()
  if (rest ~ /^"[^"]*": /) {
    key = substr(rest, 2, index(rest, "\\": ") - 2)
    if (key in dropped) {
      if (rest !~ /^"[^"]*": ".*",?$/) unsafe()
      leave_out(line)
      annotations++
      next
    }
  }
  for (key in dropped) if (index(rest, "\\"" key "\\":") > 1) unsafe()
  keep(line)
}
END {
  if (failed) exit 3
  if (holding) print held
  printf "env %d annotations %d\\n", values, annotations > "/dev/stderr"
}
'
}`;
