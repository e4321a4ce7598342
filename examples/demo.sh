#!/usr/bin/env bash
# The aidlc main job on a built-in sample:
#   1. scaffold a Git repo and build an Intent -> Requirement -> Unit -> Story -> Bolt chain;
#   2. take it through its human gates, each decision appended to the hash-chained ledger;
#   3. run the bolt: the model plans, a person approves, the model edits, a check fails, the model
#      repairs, the check passes, and the run stops at the walkthrough gate for a person;
#   4. break the chain the ways real memory banks break, and watch `aidlc validate` and
#      `aidlc log verify` catch each break with file, line, rule code and fix.
# The model's answers are replayed from a recorded cassette, examples/demo/cassette.jsonl: answers
# written for this demo in the exact format a model must answer in, standing in for a live model
# (not a model's output; examples/demo/CASSETTE.md says how it was made). So no API key and no
# network are needed. To run the same bolt against a live OpenAI-compatible server instead:
#   AIDLC_LLM_BASE_URL=http://localhost:11434/v1 AIDLC_LLM_MODEL=qwen2.5-coder bash examples/demo.sh
set -euo pipefail
# The demo plays Ada, a person, on a throwaway sample. Run from a coding agent's shell (an agent following the
# README), the markers that make aidlc refuse a person's decision there are cleared for the demo's own commands
# only; a real gate is a person's, in their own shell.
for marker in $(python3 -c 'from aidlc.gates.actor import AGENT_SHELLS; print(*AGENT_SHELLS)'); do unset "$marker"; done

demo=${1:-$(mktemp -d)/shop}
if [ -e "$demo" ] && [ -n "$(ls -A "$demo" 2>/dev/null)" ]; then  # its sample only: never a folder of yours
  echo "demo: $demo exists and is not empty; the demo builds its sample in a new folder" >&2
  echo "Next steps:" >&2
  echo "  bash examples/demo.sh    # in a new temporary folder (or give a path that does not exist)" >&2
  exit 2
fi
cassette=$(cd "$(dirname "$0")" && pwd)/demo/cassette.jsonl
if [ -n "${AIDLC_LLM_BASE_URL:-}" ]; then llm=(); else llm=(--replay "$cassette"); fi
bolt_id=001-checkout-api
bolt_dir=memory-bank/bolts/$bolt_id
story=memory-bank/intents/001-checkout/units/001-checkout-api/stories/001-pay-by-card.md
ada='Ada Lovelace <ada@example.org>'
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*" >&2; "$@"; }
# In-place edit with a Python regex (portable where `sed -i` is not): FILE PATTERN REPLACEMENT
edit() { python3 -c 'import re,sys; p=sys.argv[1]; t=open(p).read(); open(p,"w").write(re.sub(sys.argv[2],sys.argv[3],t,flags=re.M))' "$@"; }
# Replaying the cassette, the bolt takes one path only; a live model may take another.
expect() {
  if [ ${#llm[@]} -gt 0 ] && [ "$1" != "$2" ]; then
    echo "demo: exit $1 where the recorded bolt exits $2 (re-record the cassette: python -m tests.demo_cassette)" >&2
    exit 1
  fi
}
# The bolt's run as `aidlc bolt status` reports it, through a Python format string, e.g. '{status}'.
run_info() {
  aidlc bolt status "$bolt_id" --format json \
    | python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"]; print(sys.argv[1].format(**r[0]) if r else "no run")' "$1"
}

# A live model that cannot be reached, or whose answers cannot be used, ends the demo with exit 1: what
# follows needs its work. (The run pauses for the provider, or fails; with no run, bolt start refused.)
live_model_ok() {
  [ ${#llm[@]} -gt 0 ] && return 0
  local why
  why=$(aidlc bolt status "$bolt_id" --format json | python3 -c '
import json, sys
runs = json.load(sys.stdin)["runs"]
run = runs[0] if runs else None
if run is None:
    print("aidlc bolt start started no run (its message is above)")
elif run["status"] == "FAILED":
    print(run["outcome"])
elif run["pause"] and run["pause"]["kind"] == "provider":
    print(run["pause"]["reason"])')
  if [ -n "$why" ]; then
    echo "demo: the live model at $AIDLC_LLM_BASE_URL failed: $why" >&2
    echo "  aidlc llm check --base-url $AIDLC_LLM_BASE_URL    # is the server up, and does it answer?" >&2
    exit 1
  fi
}

say "1. Scaffold a new Git repo at $demo"
run aidlc init --git "$demo" --name "Shop" --type web-app
cd "$demo"
git config user.name "Ada Lovelace" && git config user.email ada@example.org

say "2. Build a chain: intent -> requirement -> unit -> stories -> bolt"
run aidlc new intent "Checkout" --statement "Shoppers pay for their cart in one step."
run aidlc new requirement "Pay by card" --intent 001 \
  --criterion "**Given** a cart with items, **When** the shopper pays by card, **Then** an order is created"
run aidlc new unit "Checkout API" --intent 001 --requirements FR-1
run aidlc new story "Pay by card" --unit checkout-api --requirements FR-1 --as-a shopper \
  --so-that "my order ships" \
  --criterion "**Given** a cart, **When** I pay with a valid card, **Then** I am charged the cart's total"
run aidlc new story "Show receipt" --unit checkout-api --requirements FR-1 --as-a shopper \
  --so-that "I can prove what I paid" \
  --criterion "**Given** a paid order, **When** I open it, **Then** the receipt shows the amount and card suffix"
run aidlc new bolt --unit checkout-api --stories 001-pay-by-card --risk medium --scope "src/checkout/**"
# Fixed dates: the model's prompts quote the bolt and its story, and a recorded answer is found
# again only for a byte-identical prompt.
for f in $(grep -rl '^created: ' memory-bank --include='*.md'); do
  edit "$f" '^(created|updated): .*$' '\1: 2026-11-30T09:00:00Z'
done
run aidlc validate

say "3. The sample's code: the cart total has a bug, and its check finds it"
mkdir -p src/checkout tests
: > src/__init__.py; : > src/checkout/__init__.py; : > tests/__init__.py
cat > src/checkout/cart.py <<'PY'
def total(prices):
    """The cart's total: the sum of its prices, in cents."""
    result = 0
    for price in prices:
        result -= price
    return result
PY
cat > tests/check_cart.py <<'PY'
"""The cart's checks: one line per case; exit 1 if any fails."""
import sys

from src.checkout.cart import total

CASES = [([], 0), ([250], 250), ([250, 1999, 1], 2250)]

failed = 0
for prices, expected in CASES:
    try:
        got = total(prices)
    except Exception as exc:
        got = f"{type(exc).__name__}: {exc}"
    if got == expected:
        print(f"ok   total({prices}) == {expected}")
    else:
        failed += 1
        print(f"FAIL total({prices}) == {expected}, got {got!r}")
print(f"{len(CASES) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
printf '__pycache__/\n.aidlc/\n' > .gitignore
edit aidlc.yaml '^verify: \[\]$' 'verify:\n  - {name: cart, run: "python3 -m tests.check_cart", timeout_s: 60}'
grep -A1 '^verify:' aidlc.yaml
run python3 -m tests.check_cart || true
git add -A && git commit -q -m "Shop: the checkout chain; the cart's total has a bug"

say "4. A person takes the chain through its gates; each decision lands in memory-bank/events.jsonl"
# This script plays Ada, a person at her terminal. Under CI the default actor kind is "ci",
# which may not decide a human checkpoint, so the demo states the kind it plays explicitly.
export AIDLC_ACTOR_KIND=human
for stage in requirements units stories bolt-plan; do
  run aidlc gate approve 001-checkout --stage "$stage" --as "$ada" --reason "reviewed"
done
git add -A && git commit -q -m "Shop: the chain's gates approved by Ada"

say "5. Run the bolt: the model plans, Ada approves, the model edits, the check verifies, the model repairs"
if [ ${#llm[@]} -gt 0 ]; then
  cat <<'NOTE'
The model's answers are replayed from examples/demo/cassette.jsonl: recorded answers stand in for
a live model (answers written for this demo, in the exact format a model must answer in; not a
model's output; see examples/demo/CASSETTE.md). Everything else is real: aidlc builds each prompt,
finds the answer recorded for exactly that prompt, checks and applies it, runs the check, commits
and records the ledger, as it does with a live model.
NOTE
else
  echo "Live model: ${AIDLC_LLM_MODEL:-llm.model of aidlc.yaml} at $AIDLC_LLM_BASE_URL"
fi
base=$(git rev-parse HEAD)
run aidlc bolt start "$bolt_id" ${llm[@]+"${llm[@]}"} && code=0 || code=$?
echo "(aidlc bolt start exited $code; 3 = paused for a person)"
expect "$code" 3
live_model_ok
echo "- the plan the model proposed, as aidlc wrote it for Ada:"
[ -f "$bolt_dir/implementation-plan.md" ] && cat "$bolt_dir/implementation-plan.md"
run aidlc gate approve "$bolt_id" --stage plan --as "$ada" --reason "small change, covered by the cart check" \
  && code=0 || code=$?
expect "$code" 0
run aidlc bolt resume "$bolt_id" ${llm[@]+"${llm[@]}"} && code=0 || code=$?
echo "(aidlc bolt resume exited $code; 3 = paused for a person)"
expect "$code" 3
live_model_ok
run aidlc bolt trace "$bolt_id"
echo "- what the check printed after the first edit (the output the repair round was sent; from the run's state.json):"
python3 - <<'PY'
import glob, json
for path in glob.glob(".aidlc/runs/*/state.json"):
    for result in (r for c in json.load(open(path))["checks"][:1] for r in c["results"] if not r["passed"]):
        print("  " + result["head"].rstrip().replace("\n", "\n  "))
PY
echo "- the walkthrough the run wrote for Ada (its head):"
[ -f "$bolt_dir/implementation-walkthrough.md" ] && head -30 "$bolt_dir/implementation-walkthrough.md"
run aidlc log verify
echo "- the run's commits (one per step, authored by Ada, with the run's trailers), and what they did to the code:"
run git log --reverse --format='%h %s%n%(trailers:only,unfold)' -p "$base..HEAD" -- src

if [ "$(run_info '{status}')" = AWAIT_ACCEPTANCE ]; then
  say "6. Ada reads the walkthrough and accepts it; an agent may not"
  echo "- an agent tries to approve the walkthrough itself:"
  AIDLC_ACTOR_KIND=agent run aidlc gate approve "$bolt_id" --stage walkthrough || true
  edit "$story" '^- \[ \]' '- [x]'
  run aidlc bolt resume "$bolt_id" --approve --reason "check green, diff reviewed"
  run aidlc validate
  run aidlc log verify
  run aidlc status
fi

say "7. Break it the way real banks break"
other=memory-bank/intents/001-checkout/units/001-checkout-api/stories/002-show-receipt.md
bolt=$bolt_dir/bolt.md
echo "- story 002 now links FR-9, which the intent never defined"
edit "$other" '^requirements: \[FR-1\]' 'requirements: [FR-1, FR-9]'
echo "- story 002 claims 'complete' by hand: no bolt, box unchecked, implemented: false, no walkthrough approved"
edit "$other" '^status: draft' 'status: complete'
echo "- a second bolt and the first now require each other (a cycle)"
mkdir -p memory-bank/bolts/002-checkout-api
sed 's/^id: 001-checkout-api/id: 002-checkout-api/; s/^requires_bolts: \[\]/requires_bolts: [001-checkout-api]/' \
  "$bolt" > memory-bank/bolts/002-checkout-api/bolt.md
edit "$bolt" '^requires_bolts: \[\]' 'requires_bolts: [002-checkout-api]'
echo "- a timestamp lost its time zone"
edit "$bolt" '^(created: [0-9T:-]*)Z$' '\1'
echo "- someone rewrites history: the reason of an approval in the ledger is edited"
edit memory-bank/events.jsonl '"reason":"reviewed"' '"reason":"approved by the CTO"'

say "8. Validate again: every break is caught, with file, line, rule code and fix"
set +e
run aidlc validate
code=$?
run aidlc log verify
verify_code=$?
set -e
printf '\naidlc validate exited %s and aidlc log verify exited %s (1 = problems found).\n' "$code" "$verify_code"
printf 'The same findings as one JSON document, summarised:\n'
run aidlc validate --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d["summary"]))' || true

say "Done. The sample repo is at $demo"
run_info 'The bolt: {budget[steps]} model calls, {budget[tokens]} tokens, {repairs} repair round(s), ended {status}.'
if [ ${#llm[@]} -gt 0 ]; then
  echo "Its answers were replayed from examples/demo/cassette.jsonl: answers written for this demo, standing"
  echo "in for a live model, not a model's output; their token counts are aidlc's estimate (4 characters a token)."
fi
cat <<'LIVE'
Run the same bolt live (pip install -e ".[openai]") on any OpenAI-compatible server (Ollama, llama.cpp, vLLM):
  AIDLC_LLM_BASE_URL=http://localhost:11434/v1 AIDLC_LLM_MODEL=qwen2.5-coder bash examples/demo.sh
or, in a repository of your own: aidlc bolt start BOLT --base-url URL --model MODEL
(a server that wants a key reads it from OPENAI_API_KEY, or the variable llm.api_key_env names).
LIVE
