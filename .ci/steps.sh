# shellcheck shell=bash
# The step runner .ci/test and .ci/run share (source it): every step runs whatever the steps before
# it did, and the end lists the steps that failed, so one broken step never hides the others.
#
#   prerequisite NAME CMD [ARG...]  runs CMD; when it fails nothing else can run: exits with its code
#   step NAME CMD [ARG...]          runs CMD as one step; a failure is recorded and the script goes on
#   verdict_step NAME CMD [ARG...]  a step that decides a performance verdict (a run's assertions, the
#                                   gate): its exit 4 (INCONCLUSIVE: the evidence did not decide,
#                                   nothing failed) is printed in a banner and listed at the end, but
#                                   is not a failure; any other non-zero exit is
#   steps_done SCRIPT               prints the summary; returns 1 when a step failed
#
# Steps are single commands (chain with && inside one): a shell function's commands would not stop at
# their first failure here, since `set -e` does not apply to a command whose status is tested.
#
# DBBENCH_CI_STEP_RUNNER, for the test of the scripts (cmd/dbbench/ci_test.go): when set, every step
# and prerequisite runs `$DBBENCH_CI_STEP_RUNNER NAME` instead of its command.

steps_total=0
steps_failed=()
steps_inconclusive=()

# run_step NAME CMD [ARG...]: runs CMD (or the test's stand-in) and returns its exit status.
run_step() {
  local name=$1
  shift
  echo "== $name"
  local rc=0
  if [[ -n ${DBBENCH_CI_STEP_RUNNER:-} ]]; then
    "$DBBENCH_CI_STEP_RUNNER" "$name" || rc=$?
  else
    "$@" || rc=$?
  fi
  return "$rc"
}

prerequisite() {
  local name=$1 rc=0
  run_step "$@" || rc=$?
  if ((rc != 0)); then
    echo "== .ci/${0##*/}: $name failed (exit $rc); nothing else can run"
    exit "$rc"
  fi
}

step() {
  local name=$1 rc=0
  steps_total=$((steps_total + 1))
  run_step "$@" || rc=$?
  if ((rc != 0)); then
    echo "-- $name failed (exit $rc)"
    steps_failed+=("$name")
  fi
}

verdict_step() {
  local name=$1 rc=0
  steps_total=$((steps_total + 1))
  run_step "$@" || rc=$?
  if ((rc == 4)); then
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
    echo "!! $name: INCONCLUSIVE (exit 4): the evidence did not decide; nothing failed."
    echo "!! Not counted as a failure. Read its output above: it says what would decide."
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
    steps_inconclusive+=("$name")
  elif ((rc != 0)); then
    echo "-- $name failed (exit $rc)"
    steps_failed+=("$name")
  fi
}

steps_done() {
  local script=$1 undecided=""
  if ((${#steps_inconclusive[@]} > 0)); then
    printf -v undecided '%s, ' "${steps_inconclusive[@]}"
    undecided=" (INCONCLUSIVE: ${undecided%, })"
  fi
  if ((${#steps_failed[@]} == 0)); then
    if [[ -n $undecided ]]; then
      echo "== $script: none of $steps_total steps failed$undecided"
    else
      echo "== $script: all $steps_total steps passed"
    fi
    return 0
  fi
  local list
  printf -v list '%s, ' "${steps_failed[@]}"
  echo "== $script: ${#steps_failed[@]} of $steps_total steps failed: ${list%, }$undecided"
  return 1
}
