# shellcheck shell=bash
# The revision a change is measured against, and its build (source it): .ci/gate and
# .ci/profile-overhead share them. Both print why they failed on stdout, for the caller to say.
#
#   base_revision EXPLICIT MAIN   prints EXPLICIT's commit when given; else the merge base of HEAD with
#                                 MAIN (default origin/main, else main); on the main branch itself,
#                                 HEAD when the working tree has changes (they are the change), else
#                                 HEAD~1
#   build_revision REV DIR BIN [GO BUILD FLAGS...]
#                                 checks REV out in a git worktree at DIR and builds its dbbench as
#                                 BIN (the worktree, once added, is the caller's to remove)

base_revision() {
  local explicit=${1:-} main=${2:-} head mb
  if [[ -n "$explicit" ]]; then
    git rev-parse --verify -q "${explicit}^{commit}" || { echo "the base revision $explicit does not exist"; return 1; }
    return 0
  fi
  if ! command -v git > /dev/null || ! git rev-parse -q HEAD > /dev/null 2>&1; then
    echo "no git repository"
    return 1
  fi
  if [[ -z "$main" ]]; then
    for m in origin/main main; do
      if git rev-parse --verify -q "$m^{commit}" > /dev/null; then main=$m && break; fi
    done
  fi
  [[ -n "$main" ]] || { echo "no main branch (origin/main or main; DBBENCH_GATE_MAIN names another)"; return 1; }
  head=$(git rev-parse HEAD)
  mb=$(git merge-base HEAD "$main") || { echo "no merge base of HEAD with $main"; return 1; }
  if [[ $mb != "$head" ]]; then
    echo "$mb"
  elif ! git diff --quiet HEAD --; then
    echo "$head" # on the main branch with changes in the working tree: they are the change
  else
    git rev-parse -q --verify "HEAD~1^{commit}" || { echo "HEAD is the first commit of $main: no previous one"; return 1; }
  fi
}

build_revision() {
  local rev=$1 dir=$2 bin=$3 short=${1:0:12}
  shift 3
  git worktree add -q --detach "$dir" "$rev" > "$dir.log" 2>&1 ||
    { echo "cannot check out the base revision $short: $(tail -n1 "$dir.log")"; return 1; }
  if ! (cd "$dir" && go build "$@" -o "$bin" ./cmd/dbbench) > "$bin.build.log" 2>&1; then
    echo "the base revision $short does not build: $(head -n1 "$bin.build.log")"
    return 1
  fi
}
