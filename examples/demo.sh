#!/usr/bin/env bash
# The aidlc main job on a built-in sample:
#   1. scaffold a Git repo and build an Intent -> Requirement -> Unit -> Story -> Bolt chain;
#   2. take it through its human gates, each decision appended to the hash-chained ledger;
#   3. break it the ways real memory banks break, and watch `aidlc validate` and
#      `aidlc log verify` catch each break with file, line, rule code and fix.
# No LLM takes part in these steps. Where the full loop has the model propose the
# implementation plan and write the walkthrough, this script writes a fixed plan and
# walkthrough itself (marked below), so no API key and no recorded model answer is needed.
set -euo pipefail

demo=${1:-$(mktemp -d)/shop}
ada='Ada Lovelace <ada@example.org>'
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*" >&2; "$@"; }

say "1. Scaffold a new Git repo at $demo"
run aidlc init --git "$demo" --name "Shop" --type web-app
cd "$demo"

say "2. Build a chain: intent -> requirement -> unit -> stories -> bolt"
run aidlc new intent "Checkout" --statement "Shoppers pay for their cart in one step."
run aidlc new requirement "Pay by card" --intent 001 \
  --criterion "**Given** a cart with items, **When** the shopper pays by card, **Then** an order is created"
run aidlc new unit "Checkout API" --intent 001 --requirements FR-1
run aidlc new story "Pay by card" --unit checkout-api --requirements FR-1 --as-a shopper \
  --so-that "my order ships" \
  --criterion "**Given** a cart, **When** I pay with a valid card, **Then** the API answers 201 with an order id"
run aidlc new story "Show receipt" --unit checkout-api --requirements FR-1 --as-a shopper \
  --so-that "I can prove what I paid" \
  --criterion "**Given** a paid order, **When** I open it, **Then** the receipt shows the amount and card suffix"
run aidlc new bolt --unit checkout-api --stories 001-pay-by-card --risk medium --scope "src/checkout/**"
run aidlc validate

say "3. A person takes the chain through its gates; each decision lands in memory-bank/events.jsonl"
# This script plays Ada, a person at her terminal. Under CI the default actor kind is "ci",
# which may not decide a human checkpoint, so the demo states the kind it plays explicitly.
export AIDLC_ACTOR_KIND=human
for stage in requirements units stories bolt-plan; do
  run aidlc gate approve 001-checkout --stage "$stage" --as "$ada" --reason "reviewed"
done
# Stand-in for the model: in the Exsecutio loop an LLM proposes this plan; here it is fixed text.
cat > memory-bank/bolts/001-checkout-api/implementation-plan.md <<'PLAN'
# Implementation Plan: 001-checkout-api

- Change `src/checkout/api.py`: POST /orders charges the card and returns 201 with the order id.
- Add `tests/test_pay_by_card.py`: valid card -> 201; declined card -> 402.
- Risk: double charge on retry; mitigated by an idempotency key. Rollback: revert the commit.
PLAN
run aidlc gate approve 001-checkout-api --stage plan --as "$ada"
echo "- an agent tries to approve the walkthrough itself:"
AIDLC_ACTOR_KIND=agent run aidlc gate approve 001-checkout-api --stage walkthrough || true
# Stand-in for the model's walkthrough report (written by the loop in the full pipeline).
cat > memory-bank/bolts/001-checkout-api/implementation-walkthrough.md <<'WALK'
# Walkthrough: 001-checkout-api

Changed `src/checkout/api.py` as planned; `tests/test_pay_by_card.py` passes (2 tests).
WALK
story=memory-bank/intents/001-checkout/units/001-checkout-api/stories/001-pay-by-card.md
sed -i.bak 's/^- \[ \]/- [x]/' "$story" && rm -f "$story.bak"
run aidlc gate approve 001-checkout-api --stage walkthrough --as "$ada" --reason "tests green, diff reviewed"
run aidlc validate
run aidlc log verify
run aidlc status

say "4. Break it the way real banks break"
other=memory-bank/intents/001-checkout/units/001-checkout-api/stories/002-show-receipt.md
bolt=memory-bank/bolts/001-checkout-api/bolt.md
echo "- story 002 now links FR-9, which the intent never defined"
sed -i.bak 's/^requirements: \[FR-1\]/requirements: [FR-1, FR-9]/' "$other"
echo "- story 002 claims 'complete' by hand: no bolt, box unchecked, implemented: false, no walkthrough approved"
sed -i.bak 's/^status: draft/status: complete/' "$other"
echo "- a second bolt and the first now require each other (a cycle)"
mkdir -p memory-bank/bolts/002-checkout-api
sed 's/^id: 001-checkout-api/id: 002-checkout-api/; s/^requires_bolts: \[\]/requires_bolts: [001-checkout-api]/' \
  "$bolt" > memory-bank/bolts/002-checkout-api/bolt.md
sed -i.bak 's/^requires_bolts: \[\]/requires_bolts: [002-checkout-api]/' "$bolt"
echo "- a timestamp lost its time zone"
sed -i.bak 's/^\(created: [0-9T:-]*\)Z$/\1/' "$bolt"
echo "- someone rewrites history: the reason of an approval in the ledger is edited"
sed -i.bak 's/"reason":"reviewed"/"reason":"approved by the CTO"/' memory-bank/events.jsonl
rm -f memory-bank/*.bak memory-bank/events.jsonl.bak "$other.bak" "$bolt.bak"

say "5. Validate again: every break is caught, with file, line, rule code and fix"
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
