#!/usr/bin/env bash
# test_paper_quick.sh - bench/paper.sh --quick end to end: two Kronecker graphs x two
# emulated clouds x four modes (bsp, dsana, dynamic, chunking), one pair (the byte
# identity and the table's shape need no more). Checks that it exits 0 (every mode's
# ranks byte-identical to bsp's), that results.csv has exactly one row per graph x
# scenario x mode (16) with numeric fields, and results.md. Plots are
# optional (skipped by paper.sh when gnuplot is missing). Skips (77) without jq, GNU time
# or gawk. Nothing here asserts a speed: timed targets belong to the benchmark.
# timeout: 90 s (CTest: at least three times its run time alone)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

[ -n "${DSANA:-}" ] && [ -x "$DSANA" ] || die "DSANA is not an executable ($DSANA)"
[ -n "${DSANA_SRC:-}" ] && [ -r "$DSANA_SRC/bench/paper.sh" ] || die "no bench/paper.sh under DSANA_SRC=${DSANA_SRC:-}"
command -v jq >/dev/null 2>&1 || skip "jq is missing"
[ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time) is missing"
command -v awk >/dev/null 2>&1 || skip "awk is missing"

out=$T/paper
start=$(date +%s)
RC=0
DSANA=$DSANA PAPER_GRAPHS=$T/graphs TMPDIR=$T timeout 170 bash "$DSANA_SRC/bench/paper.sh" --quick --pairs 1 --out "$out" \
  >"$T/paper.stdout" 2>"$T/paper.stderr" || RC=$?
elapsed=$(($(date +%s) - start))
note "paper.sh --quick took ${elapsed} s (exit $RC)"
if [ "$RC" -ne 0 ]; then
  tail -n 30 "$T/paper.stderr" >&2
  die "bench/paper.sh --quick exited $RC (1 = outputs differ between modes or a run failed)"
fi
pass "paper.sh --quick exits 0: every mode's ranks byte-identical to bsp's"

csv=$out/results.csv
[ -s "$csv" ] || die "no $csv"
hdr=$(head -n 1 "$csv")
col() { awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) { print i; exit } }' "$csv"; }
for c in graph scenario mode total_s_median iter_s_median iterations improvement_pct efficiency \
  compute_bound_s transfer_bound_s peak_rss_mib_largest_role outputs_identical target; do
  [ -n "$(col "$c")" ] || die "results.csv has no column $c (header: $hdr)"
done

rows=$(($(wc -l <"$csv") - 1))
[ "$rows" -eq 16 ] && pass "results.csv has 16 data rows" || fail "results.csv has $rows data rows, expected 16"

# exactly one row per graph x scenario x mode
combos=$(awk -F, -v g="$(col graph)" -v s="$(col scenario)" -v m="$(col mode)" \
  'NR > 1 { print $g "|" $s "|" $m }' "$csv" | sort -u | wc -l)
ng=$(awk -F, -v g="$(col graph)" 'NR > 1 { print $g }' "$csv" | sort -u | wc -l)
ns=$(awk -F, -v s="$(col scenario)" 'NR > 1 { print $s }' "$csv" | sort -u | wc -l)
nm=$(awk -F, -v m="$(col mode)" 'NR > 1 { print $m }' "$csv" | sort -u | tr '\n' ' ')
if [ "$combos" -eq 16 ] && [ "$ng" -eq 2 ] && [ "$ns" -eq 2 ] && [ "$nm" = "bsp chunking dsana dynamic " ]; then
  pass "one row per graph x scenario x mode (2 x 2 x 4)"
else
  fail "rows are not one per graph x scenario x mode: $combos distinct, $ng graphs, $ns scenarios, modes '$nm'"
fi

# numeric fields: every column except the names, the yes/NO and MET/MISSED columns, date and commit
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) name[i] = $i; next }
  { for (i = 1; i <= NF; i++) {
      n = name[i]
      if (n ~ /^(graph|scenario|mode|outputs_identical|target|date|commit)$/) continue
      if ($i !~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) print "row " NR-1 " " n "=" $i } }' "$csv")
[ -z "$bad" ] && pass "all numeric fields are numbers" || fail "non-numeric fields: $bad"

# positive times, identical outputs, MET/MISSED on every non-bsp row
bad=$(awk -F, -v t="$(col total_s_median)" -v it="$(col iter_s_median)" -v id="$(col outputs_identical)" \
  -v m="$(col mode)" -v tg="$(col target)" -v im="$(col improvement_pct)" 'NR > 1 {
    if (!($t > 0) || !($it > 0)) print "row " NR-1 ": non-positive time"
    if ($id != "yes") print "row " NR-1 ": outputs_identical=" $id
    if ($m == "bsp" && ($tg != "n/a" || $im != 0)) print "row " NR-1 ": bsp row target=" $tg " improvement=" $im
    if ($m != "bsp" && $tg != "MET" && $tg != "MISSED") print "row " NR-1 ": target=" $tg }' "$csv")
[ -z "$bad" ] && pass "times positive, outputs identical, targets MET/MISSED" || fail "$bad"

md=$out/results.md
if [ -s "$md" ] && grep -q '^## homogeneous-cloud' "$md" && grep -q '^## heterogeneous-cloud' "$md" &&
  [ "$(grep -c '^| kron-s1[24] |' "$md")" -eq 16 ] && grep -q '^| kron-s12 |' "$T/paper.stdout"; then
  pass "results.md has a table per scenario (16 rows) and was printed on stdout"
else
  fail "results.md or the printed table is incomplete"
fi

if command -v gnuplot >/dev/null 2>&1; then
  for p in improvement itertime gantt; do
    [ -s "$out/$p.png" ] && pass "$p.png written" || fail "gnuplot is installed but $out/$p.png is missing"
  done
else
  note "gnuplot missing: plots skipped (not a failure)"
fi

[ "$elapsed" -le 60 ] || note "warning: paper.sh --quick took ${elapsed} s (budget 60 s on 2 cores)"
finish
