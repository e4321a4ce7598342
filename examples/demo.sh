#!/usr/bin/env bash
# The aidlc main job on a built-in sample: scaffold a Git repo, build a small
# Intent -> Requirement -> Unit -> Story -> Bolt chain with `aidlc new`, validate it,
# then break it the ways real memory banks break and watch `aidlc validate` catch each one.
# No LLM is involved in this part of the pipeline: every file here is written by aidlc's
# templates or by the edits shown, so no API key (and no recorded model answer) is needed.
set -euo pipefail

demo=${1:-$(mktemp -d)/shop}
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*" >&2; "$@"; }

say "1. Scaffold a new Git repo at $demo"
run aidlc init --git "$demo" --name "Shop" --type web-app
cd "$demo"

say "2. Build a chain: intent -> requirement -> unit -> story -> bolt"
run aidlc new intent "Checkout" --statement "Shoppers pay for their cart in one step."
run aidlc new requirement "Pay by card" --intent 001 \
  --criterion "**Given** a cart with items, **When** the shopper pays by card, **Then** an order is created"
run aidlc new unit "Checkout API" --intent 001 --requirements FR-1
run aidlc new story "Pay by card" --unit checkout-api --requirements FR-1 --as-a shopper \
  --so-that "my order ships" \
  --criterion "**Given** a cart, **When** I pay with a valid card, **Then** the API answers 201 with an order id"
run aidlc new bolt --unit checkout-api --stories 001-pay-by-card --risk medium --scope "src/checkout/**"

say "3. Validate: the chain is intact"
run aidlc validate
run aidlc status

say "4. Break it the way real banks break"
story=memory-bank/intents/001-checkout/units/001-checkout-api/stories/001-pay-by-card.md
bolt=memory-bank/bolts/001-checkout-api/bolt.md
echo "- the story now links FR-9, which the intent never defined"
sed -i.bak 's/^requirements: \[FR-1\]/requirements: [FR-1, FR-9]/' "$story"
echo "- the story claims 'complete' with its acceptance box unchecked and implemented: false"
sed -i.bak 's/^status: draft/status: complete/' "$story"
echo "- the bolt depends on itself through a second bolt (a cycle)"
mkdir -p memory-bank/bolts/002-checkout-api
sed 's/^id: 001-checkout-api/id: 002-checkout-api/; s/^requires_bolts: \[\]/requires_bolts: [001-checkout-api]/' \
  "$bolt" > memory-bank/bolts/002-checkout-api/bolt.md
sed -i.bak 's/^requires_bolts: \[\]/requires_bolts: [002-checkout-api]/' "$bolt"
echo "- a timestamp lost its time zone"
sed -i.bak 's/^\(created: [0-9T:-]*\)Z$/\1/' "$bolt"
rm -f "$story.bak" "$bolt.bak"

say "5. Validate again: every break is caught, with file, line, rule code and fix (exit 1)"
set +e
run aidlc validate
code=$?
set -e
printf '\naidlc validate exited %s (1 = errors found). The same findings as JSON:\n' "$code"
run aidlc --format json validate | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d["summary"]))' || true
say "Done. The sample repo is at $demo"
