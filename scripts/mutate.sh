#!/usr/bin/env bash
# Mutation testing of one rule module (mutmut 2.x, the dev extra), in a copy of the tree.
#
#   scripts/mutate.sh protections            # or tohit, defence, lag, stun, immunity, blow, damage,
#                                            # rng (engine/core/rng.py), arith (engine/core/arith.py),
#                                            # event_log (engine/core/event_log.py), skills
#   scripts/mutate.sh protections results    # list the surviving mutants afterwards
#   scripts/mutate.sh protections show 17    # one mutant's diff
#   MUTATE_REFRESH=1 scripts/mutate.sh stun  # after new commits: refresh the copy, keep
#                                            # the cache (only survivors run again)
#
# mutmut 2 mutates the file in place, so it runs in a copy (MUTATE_DIR, default
# /tmp/affray-mutate) of the committed tree, never in the working tree other people test
# in; the copy is imported through a small package farm on PYTHONPATH (affray -> engine/,
# with its subpackages linked in), which wins over the editable install. Each module runs
# only the tests that target it (below), with -x: a few minutes per module on one core.
set -euo pipefail
module=${1:?usage: scripts/mutate.sh MODULE [results|show ID]}
shift || true
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
dir=${MUTATE_DIR:-/tmp/affray-mutate}
declare -A tests=(
  [protections]="tests/test_shared_formulas.py tests/test_fidelity_protections.py tests/test_protections.py tests/test_immunity.py tests/test_mutants_formulas.py tests/test_mutants_shared_protections.py"
  [immunity]="tests/test_fidelity_immunity.py tests/test_immunity.py tests/test_protections.py"
  [stun]="tests/test_shared_formulas.py tests/test_fidelity_round.py tests/test_stun.py tests/test_lag.py"
  [lag]="tests/test_lag.py tests/test_lag_table.py tests/test_mutants_lag.py"
  [tohit]="tests/test_shared_formulas.py tests/test_fidelity_tohit.py tests/test_tohit.py tests/test_fidelity_protections.py tests/test_mutants_tohit.py tests/test_mutants_formulas.py"
  [damage]="tests/test_fidelity_positions.py tests/test_melee.py tests/test_protections.py"
  [blow]="tests/test_shared_formulas.py tests/test_fidelity_blow.py tests/test_fidelity_tohit.py tests/test_melee.py tests/test_fidelity_round.py tests/test_fidelity_movement.py tests/test_fidelity_positions.py tests/test_fidelity_defence.py tests/test_mutants_blow.py tests/test_mutants_formulas.py tests/test_mutants_shared_blow.py"
  [defence]="tests/test_shared_formulas.py tests/test_fidelity_defence.py tests/test_defence.py tests/test_mutants_defence.py tests/test_mutants_formulas.py"
  [rng]="tests/test_rng.py tests/test_mutants_rng.py tests/test_save.py tests/test_fidelity_tohit.py"
  [arith]="tests/test_shared_formulas.py tests/test_mutants_arith.py tests/test_fidelity_protections.py"
  [event_log]="tests/test_event_log.py tests/test_mutants_event_log.py"
  [skills]="tests/test_shared_formulas.py tests/test_lag.py tests/test_melee.py tests/test_mutants_formulas.py"
)
# Modules outside systems/rules/ (default: systems/rules/MODULE.py).
declare -A paths=(
  [rng]="engine/core/rng.py"
  [arith]="engine/core/arith.py"
  [event_log]="engine/core/event_log.py"
)
[[ -n "${tests[$module]:-}" ]] || { echo "unknown module $module" >&2; exit 2; }
if [[ ! -d "$dir/_pkg" || -n "${MUTATE_REFRESH:-}" ]]; then
  # A fresh commit into the copy; mutmut's cache stays: killed mutants stay killed,
  # survivors are tried again against the new tests (MUTATE_REFRESH=1).
  mkdir -p "$dir"
  git -C "$root" archive HEAD | tar -x -C "$dir"
  for sub in components systems content benchmarks; do ln -sfn "../$sub" "$dir/engine/$sub"; done
  mkdir -p "$dir/_pkg" && ln -sfn ../engine "$dir/_pkg/affray"
fi
cd "$dir"
export PYTHONPATH="$dir/_pkg"
if ! command -v mutmut > /dev/null && [[ -x "$root/.venv/bin/mutmut" ]]; then
  export PATH="$root/.venv/bin:$PATH"  # the checkout's venv (README), not activated
fi
if [[ $# -gt 0 ]]; then exec mutmut "$@"; fi
# mutmut 2 counts a mutant killed only on exit status 1; a mutant that breaks the import
# makes pytest exit 2 (a collection error) and would pass as a survivor: any failure is 1
# (mutmut splits the runner itself, without a shell: hence bash -c).
exec mutmut run --paths-to-mutate "${paths[$module]:-systems/rules/$module.py}" \
  --runner "bash -c 'python -m pytest -x -q -p no:cacheprovider --assert=plain ${tests[$module]} || exit 1'"
