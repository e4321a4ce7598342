#!/usr/bin/env bash
# aidlc on a repository whose coding agent follows AWS aidlc-workflows and keeps its records in aidlc-docs/:
#   1. build a small Git repo holding the records an agent writes (aidlc-state.md, audit.md, plans), commit by commit,
#      in the shapes the rules' templates give them; one stage is ticked though the person asked for changes;
#   2. `aidlc validate` finds that stage, and `aidlc status` shows each ticked stage with the audit entry it reads
#      as the person's approval, so a reviewer can check the reading;
#   3. a pull request rewrites the person's answer in the log and ticks the last stage: the work tree alone now
#      looks approved, and `aidlc ci --base main` refuses it from the history.
# No model runs here: this script writes the records itself, as an agent would, with fixed dates.
set -euo pipefail

for tool in aidlc git; do
  if ! command -v "$tool" > /dev/null; then
    echo "aidlc-docs example: the $tool command is not on PATH; the example runs it" >&2
    echo "Next steps:" >&2
    echo "  python3 -m venv .venv && . .venv/bin/activate && pip install -e .    # aidlc (git: install it with your system's packages)" >&2
    exit 2
  fi
done
sample=${1:-$(mktemp -d)/shop-records}
if [ -e "$sample" ] && [ -n "$(ls -A "$sample" 2>/dev/null)" ]; then  # its sample only: never a folder of yours
  echo "aidlc-docs example: $sample exists and is not empty; the example builds its sample in a new folder" >&2
  echo "Next steps:" >&2
  echo "  bash examples/aidlc-docs.sh    # in a new temporary folder (or give a path that does not exist)" >&2
  exit 2
fi
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*" >&2; "$@"; }
# The entries the rules' template logs, one a line on stdin: HEADING|TIMESTAMP|USER INPUT|AI RESPONSE|CONTEXT (no
# user input: the agent's own prompt). Each: heading, timestamp, the person's words, the response, the context.
entries() {
  while IFS='|' read -r heading at said response context; do
    printf '## %s\n**Timestamp**: %s\n' "$heading" "$at"
    if [ -n "$said" ]; then printf '**User Input**: "%s"\n' "$said"; fi
    printf '**AI Response**: "%s"\n**Context**: %s\n\n---\n\n' "$response" "$context"
  done
}
# Commit everything at a fixed time (the entries' times come before their commit's, as a clock would have them).
commit() { GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" git commit -qm "$2"; }
# One plan's steps: FILE TITLE DONE OPEN (DONE boxes ticked, then OPEN boxes left open).
plan() {
  {
    printf '# %s\n\n## Steps\n' "$2"
    for n in $(seq 1 "$3"); do printf -- '- [x] Step %s: done\n' "$n"; done
    for n in $(seq $(($3 + 1)) $(($3 + $4))); do printf -- '- [ ] Step %s: to do\n' "$n"; done
  } > "$1"
}
state() {  # aidlc-state.md; the boxes of unit 1's Functional Design and Code Generation, of unit 2's, of Build and Test
  cat > aidlc-docs/aidlc-state.md <<EOF
# AI-DLC State Tracking

## Project Information
- **Project Type**: Greenfield
- **Start Date**: 2026-11-30T09:02:11Z

## Stage Progress

### INCEPTION PHASE
- [x] Workspace Detection
- [ ] Reverse Engineering - SKIP
- [x] Requirements Analysis
- [ ] User Stories - SKIP
- [x] Workflow Planning
- [ ] Application Design - SKIP
- [x] Units Generation - EXECUTE

### CONSTRUCTION PHASE
- [$1] Functional Design - EXECUTE (Unit 1: orders-api)
- [$2] Code Generation - EXECUTE (Unit 1: orders-api)
- [$3] Functional Design - EXECUTE (Unit 2: shop-web)
- [$4] Code Generation - EXECUTE (Unit 2: shop-web)
- [$5] Build and Test - EXECUTE

### OPERATIONS PHASE
- [ ] Operations - PLACEHOLDER
EOF
}

say "1. A repository whose agent keeps aidlc-docs/, built commit by commit at $sample"
mkdir -p "$sample" && cd "$sample"
git init -q -b main
git config user.name "Ada Lovelace" && git config user.email ada@example.org
mkdir -p aidlc-docs/inception/{plans,requirements,application-design} aidlc-docs/construction/plans src
printf '# Requirements\n\n## FR-1: Customers place an order\n## FR-2: Staff see incoming orders\n' \
  > aidlc-docs/inception/requirements/requirements.md
printf '# Units of Work\n\n## Unit 1: orders-api\nThe order API.\n\n## Unit 2: shop-web\nThe shop pages.\n' \
  > aidlc-docs/inception/application-design/unit-of-work.md
plan aidlc-docs/inception/plans/execution-plan.md "Execution Plan" 4 0
plan aidlc-docs/inception/plans/unit-of-work-plan.md "Unit of Work Plan" 3 0
state " " " " " " " " " "
printf '# AI-DLC Audit Log\n\n' > aidlc-docs/audit.md
entries >> aidlc-docs/audit.md <<'EOF'
Workspace Detection|2026-11-30T09:02:11Z|Build a small shop: customers order, staff see incoming orders.|Greenfield project detected. Starting Requirements Analysis.|INCEPTION - Workspace Detection
Requirements Analysis - Approval Prompt|2026-11-30T09:14:37Z||Requirements are ready for review. Approve & Continue, or Request Changes?|INCEPTION - Requirements Analysis
Requirements Analysis - Approval|2026-11-30T09:21:05Z|Approve & Continue|Requirements approved. Proceeding to Workflow Planning.|INCEPTION - Requirements Analysis approved
Workflow Planning - Approval|2026-11-30T09:33:48Z|looks good, continue|Execution plan approved: user stories and application design skipped.|INCEPTION - Workflow Planning approved
Units Generation - Approval|2026-11-30T09:47:19Z|yes, two units|Units approved: orders-api and shop-web.|INCEPTION - Units Generation approved
EOF
git add -A && commit 2026-11-30T09:48:02Z "Inception: requirements, plan and units approved"

plan aidlc-docs/construction/plans/orders-api-code-generation-plan.md "Code Generation Plan: orders-api" 4 0
plan aidlc-docs/construction/plans/shop-web-code-generation-plan.md "Code Generation Plan: shop-web" 3 2
for unit in orders-api shop-web; do
  mkdir -p "aidlc-docs/construction/$unit/functional-design"
  printf '# Business logic of %s\n' "$unit" > "aidlc-docs/construction/$unit/functional-design/business-logic-model.md"
done
printf 'def place_order(items):\n    return {"items": items, "status": "placed"}\n' > src/orders.py
entries >> aidlc-docs/audit.md <<'EOF'
Functional Design - Unit 1 Approval|2026-11-30T10:05:26Z|Continue to Next Stage|Unit 1 functional design approved.|CONSTRUCTION - Unit 1 orders-api
Code Generation - Unit 1 Approval|2026-11-30T10:41:53Z|Continue to Next Stage|Unit 1 code approved.|CONSTRUCTION - Unit 1 orders-api
Functional Design - Unit 2 Approval|2026-11-30T10:58:14Z|approved|Unit 2 functional design approved.|CONSTRUCTION - Unit 2 shop-web
Code Generation - Unit 2 Review|2026-11-30T11:26:40Z|Request Changes: show prices with tax|Changes noted; the code generation plan gets a step for prices with tax.|CONSTRUCTION - Unit 2 shop-web
EOF
state x x x x " "
git add -A && commit 2026-11-30T11:27:09Z "Construction: units 1 and 2 designed and generated"

say "2. What the records claim, checked"
set +e
run aidlc validate
code=$?
set -e
printf '\n(aidlc validate exited %s: 1 = errors found. The person asked for changes; the stage was ticked anyway, two steps of its plan open.)\n' "$code"
run aidlc status

say "3. A pull request makes the log say what the work tree needs"
git checkout -q -b agent/finish
python3 - <<'EOF'
from pathlib import Path
log = Path("aidlc-docs/audit.md")
log.write_text(log.read_text().replace('"Request Changes: show prices with tax"', '"Approve & Continue"'))
EOF
state x x x x x
git add -A && commit 2026-11-30T11:52:31Z "Finish construction"
echo "The branch's work tree alone reads approved: unit 2's Code Generation now cites the rewritten answer."
run aidlc status --quiet || true
set +e
run aidlc ci --base main
code=$?
set -e
printf '\n(aidlc ci exited %s: 1 = the pull request is refused. The history shows the answer rewritten.)\n' "$code"

say "Done. The sample repo is at $sample"
echo "Try it on your own repository: aidlc validate; aidlc status; aidlc ci --base origin/main"
echo "What each finding means and how its fix reads: docs/aidlc-docs.md"
