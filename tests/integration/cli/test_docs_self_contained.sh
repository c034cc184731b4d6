#!/usr/bin/env bash
# test_docs_self_contained.sh - the README points to the architecture
# inside the repository (docs/design.md), never to files a clone does not
# have (../shared/...), and every relative link in it resolves; its usage
# section shows --weighted, --undirected, --personalization and --mode.
# The other documents (bench/README.md, docs/) do not send readers outside
# the repository either.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
readme=$DSANA_SRC/README.md
grep -q "\.\./shared" "$readme" && fail "README.md refers to ../shared: $(grep -n '\.\./shared' "$readme")" ||
  pass "no ../shared in README.md"
grep -q "docs/design.md" "$readme" && [ -f "$DSANA_SRC/docs/design.md" ] && pass "README.md links docs/design.md" ||
  fail "README.md does not link docs/design.md"
while IFS= read -r link; do
  [ -e "$DSANA_SRC/$link" ] || fail "README.md links $link, which the repository lacks"
done < <(grep -o '](\([^)#:]*\))' "$readme" | sed 's/^](//; s/)$//')
# the other documents a clone has: no pointers to this machine's /work/shared (the bench
# README sent readers to /work/shared/BENCH.md and DESIGN.md), relative links resolve
for doc in bench/README.md docs/design.md docs/evaluation.md docs/apps.md docs/fuzzing.md; do
  if grep -Eq '/work/|shared/[A-Z]+\.md' "$DSANA_SRC/$doc"; then
    fail "$doc points outside the repository: $(grep -En '/work/|shared/[A-Z]+\.md' "$DSANA_SRC/$doc" | head -n 3)"
  else
    pass "$doc points to nothing outside the repository"
  fi
  while IFS= read -r link; do
    [ -e "$(dirname "$DSANA_SRC/$doc")/$link" ] || fail "$doc links $link, which the repository lacks"
  done < <(grep -o '](\([^)#:]*\))' "$DSANA_SRC/$doc" | sed 's/^](//; s/)$//')
done
for opt in --weighted --undirected --personalization --mode; do
  grep -q -- "$opt" "$readme" && pass "README.md shows $opt" || fail "README.md lacks $opt"
done
finish
