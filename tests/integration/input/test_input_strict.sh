#!/usr/bin/env bash
# test_input_strict.sh - every input is refused (exit 2, one line on stderr
# naming the file and the line or byte offset) or read as a strict reader
# would; never a hang, a crash or a silently different answer. Inputs at
# the edges of the readers: lines without end, misspelt banners, unparsed
# fields, trailing bytes, numbers past their meaning, repeated options,
# loose model files.
# timeout: 60 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

# run_limited NAME CMD...: as run_capture, but a run that would grow without
# bound on a bad build fails instead of taking the machine's memory: 2 GB of
# address space, 30 s. An AddressSanitizer build reserves terabytes of
# address space at start: there only the time is bounded (the regular
# build's run checks the memory).
if ldd "$DSANA" 2>/dev/null | grep -q libasan || grep -aq __asan_init "$DSANA"; then
  VLIMIT=unlimited
else
  VLIMIT=2000000
fi
run_limited() {
  local name=$1
  shift
  RC=0
  (ulimit -v "$VLIMIT" && exec timeout 30 "$@") >"$T/$name.out" 2>"$T/$name.err" || RC=$?
}

# expect_refused CASE FILE LINE KEYWORD CMD...
#   FILE:    a string stderr must contain (the file name), or "" for none
#   LINE:    the line stderr must name ("FILE:LINE" or "line LINE"), or ""
#   KEYWORD: another string stderr must contain, or ""
expect_refused() {
  local case=$1 file=$2 line=$3 keyword=$4
  shift 4
  run_limited "$case" "$@"
  local err="$case.err"
  refusal_problems "$err" "$file" "$line" "$keyword"
  local problems=("${PROBLEMS[@]}")
  if [ "${#problems[@]}" -eq 0 ]; then
    pass "$case: exit 2: $(head -n 1 "$err")"
  else
    local p joined=""
    for p in "${problems[@]}"; do joined+="$p; "; done
    fail "$case: $(show_cmd "$@"): ${joined}stderr was: $(head -c 600 "$err" | sed 's/$/\\n/' | tr -d '\n')"
  fi
}

# expect_ok CASE CMD...: exit 0 (stdout in CASE.out).
expect_ok() {
  local case=$1
  shift
  run_limited "$case" "$@"
  if [ "$RC" -eq 0 ]; then
    pass "$case: exit 0"
  else
    fail "$case: $(show_cmd "$@"): exit $RC (expected 0); stderr: $(head -c 600 "$case.err")"
  fi
}

# line_of N: a line of N bytes (without its '\n'): "1 2" then blanks.
line_of() {
  printf '1 2'
  head -c $(($1 - 3)) /dev/zero | tr '\0' ' '
  printf '\n'
}

MIB=1048576
printf '0 1\n1 2\n2 0\n' >small.txt

note "1. a line has a bounded length (1 MiB; libsvm 64 MiB)"
expect_refused zero_graph /dev/zero 1 "longer than" "$DSANA" graph info /dev/zero
expect_refused zero_pagerank /dev/zero 1 "longer than" "$DSANA" pagerank /dev/zero --out out.zero --quiet
expect_refused zero_data /dev/zero 1 "longer than" "$DSANA" data info /dev/zero
{ awk 'BEGIN { for (i = 0; i < 200000; i++) print i, (i + 1) % 200000 }'; line_of $((MIB + 1)); } >long_mid.txt
{ awk 'BEGIN { for (i = 0; i < 200000; i++) print i, (i + 1) % 200000 }'; line_of $MIB; } >long_ok.txt
expect_refused long_mid long_mid.txt 200001 "longer than" "$DSANA" graph info long_mid.txt
expect_ok long_ok "$DSANA" graph info long_ok.txt
{ printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 1\n'; line_of $((MIB + 1)); } >long.mtx
expect_refused long_mtx long.mtx 3 "longer than" "$DSANA" graph info long.mtx
{ printf '0 1\n'; line_of $((MIB + 1)); } >long_pers.txt
expect_refused long_pers long_pers.txt 2 "longer than" \
  "$DSANA" pagerank small.txt --personalization long_pers.txt --out out.pers --quiet

note "3. gzip: members may follow one another, nothing else may follow them"
printf '0 1\n1 2\n' | gzip -n -c >a.txt.gz
printf '2 0\n' | gzip -n -c >b.txt.gz
cat a.txt.gz b.txt.gz >two.txt.gz
{ cat a.txt.gz; printf 'garbage\n'; } >junk.txt.gz
{ cat a.txt.gz; head -c 100 /dev/zero; } >padded.txt.gz
{ cat a.txt.gz; head -c 100 /dev/zero; printf x; } >padjunk.txt.gz
gz_bytes=$(wc -c <a.txt.gz)
expect_ok two_members "$DSANA" graph info two.txt.gz
if grep -q '^edges: 3$' two_members.out; then pass "two members: 3 edges"; else fail "two members: $(tr '\n' ' ' <two_members.out)"; fi
expect_ok padded "$DSANA" graph info padded.txt.gz
expect_refused junk junk.txt.gz "" "offset $gz_bytes" "$DSANA" graph info junk.txt.gz
expect_refused padjunk padjunk.txt.gz "" "offset $gz_bytes" "$DSANA" graph info padjunk.txt.gz
printf '1 1:0.5\n' | gzip -n -c >d.svm.gz
{ cat d.svm.gz; printf 'x'; } >junk.svm.gz
expect_refused junk_svm junk.svm.gz "" "trailing garbage" "$DSANA" data info junk.svm.gz

note "5. timeouts within what their ns and ms counts hold"
for v in 1e12 1e300 1e11 1e-320; do
  expect_refused "peer_timeout_$v" "" "" "--peer-timeout $v: invalid value (a number of seconds in [0.001, 1e6])" \
    "$DSANA" pagerank small.txt --peer-timeout "$v" --out "out.pt.$v" --quiet
  expect_refused "register_timeout_$v" "" "" "--register-timeout $v: invalid value" \
    "$DSANA" pagerank small.txt --register-timeout "$v" --out "out.rt.$v" --quiet
done
expect_refused worker_peer_timeout "" "" "--peer-timeout 1e12: invalid value" \
  "$DSANA" worker --scheduler tcp://127.0.0.1:9 --peer-timeout 1e12

note "6. an option with a value is given once (flags may repeat)"
expect_refused twice_workers "" "" "--workers given twice" \
  "$DSANA" pagerank small.txt --workers 2 --out out.tw --workers 3 --quiet
expect_refused twice_app "" "" "--tol given twice" "$DSANA" pagerank small.txt --tol 1e-3 --tol 1e-4 --out out.ta
expect_refused twice_role "" "" "--peer-timeout given twice" \
  "$DSANA" worker --scheduler tcp://127.0.0.1:9 --peer-timeout 2 --peer-timeout 3
expect_refused twice_graph "" "" "--reorder given twice" \
  "$DSANA" graph convert small.txt g.bin --reorder degree --reorder none
expect_refused twice_data "" "" "--samples given twice" \
  "$DSANA" data gen logreg --samples 3 --features 2 --nnz-per-row 1 --samples 4 --out d.svm
expect_refused twice_predict "" "" "--out given twice" "$DSANA" logreg predict m.txt d.svm -o p1 --out p2
expect_ok twice_flag "$DSANA" pagerank small.txt --quiet --out out.tf --quiet
# dsana sim: its own options as the run's
expect_refused twice_sim_seed "" "" "--seed given twice" "$DSANA" sim small.txt --seed 1 --quiet --seed 2
expect_refused twice_sim_noise "" "" "--noise given twice" "$DSANA" sim small.txt --noise 0.1 --noise 0.1 --quiet
expect_refused twice_sim_host "" "" "--host-cores given twice" "$DSANA" sim small.txt --host-cores 1 --host-cores 2
printf '1\n2\n' >costs.tasks
expect_refused twice_sim_tasks "" "" "--tasks given twice" "$DSANA" sim --tasks costs.tasks --tasks costs.tasks
expect_refused twice_sim_run "" "" "--workers given twice" "$DSANA" sim small.txt --workers 2 --workers 3 --quiet
expect_ok twice_sim_flag "$DSANA" sim small.txt --local --quiet --local

note "7. model files for predict: strict, line by line"
run_limited gen "$DSANA" data gen logreg --samples 200 --features 5 --nnz-per-row 3 --seed 1 --out d.svm
run_limited train_lr "$DSANA" logreg d.svm --model-out lr.model --quiet --max-iter 5
run_limited train_mlp "$DSANA" mlp d.svm --model-out mlp.model --quiet --epochs 1 --hidden 4
[ -s lr.model ] && [ -s mlp.model ] || die "training the models failed: $(cat train_lr.err train_mlp.err)"
expect_ok lr_model_ok "$DSANA" logreg predict lr.model d.svm --out p.lr
expect_ok mlp_model_ok "$DSANA" mlp predict mlp.model d.svm --out p.mlp
# bad_model NAME APP LINE KEYWORD: NAME.model (made by the caller) refused naming LINE
bad_model() {
  expect_refused "model_$1" "$1.model" "$3" "$4" "$DSANA" "$2" predict "$1.model" d.svm --out "p.$1"
}
sed '3s/.*/# labels nan 1/' lr.model >nanlabel.model
bad_model nanlabel logreg 3 "not a finite number"
sed '3s/.*/# labels -inf 1/' lr.model >inflabel.model
bad_model inflabel logreg 3 "not a finite number"
sed '3s/.*/# labels 1 1/' lr.model >duplabel.model
bad_model duplabel logreg 3 "twice"
sed '3s/$/ 7/' lr.model >morelabels.model
bad_model morelabels logreg 3 "more than"
{ cat lr.model; echo 0.5; } >extraline.model
bad_model extraline logreg 10 "more lines"
sed '4s/$/ 7/' lr.model >extratoken.model
bad_model extratoken logreg 4 "more than one number"
sed '5s/^\(..\)./\1\x00/' lr.model >nul.model
bad_model nul logreg 5 "NUL byte"
{ head -n 4 lr.model; head -c 2000000 /dev/zero | tr '\0' 1; echo; tail -n +6 lr.model; } >longline.model
bad_model longline logreg 5 "longer than"
sed '2s/$/ x/' lr.model >header.model
bad_model header logreg 2 "bad header"
{ cat mlp.model; echo 0.5; } >mlpextra.model
bad_model mlpextra mlp "$(($(wc -l <mlp.model) + 1))" "more lines"
sed '3s/.*/# labels -1 nan/' mlp.model >mlpnan.model
bad_model mlpnan mlp 3 "not a finite number"
sed '2s/$/ relu/' mlp.model >mlphdr.model
bad_model mlphdr mlp 2 "bad header"
# gzip models are read as every text input: members, zero padding, nothing else after them
for app in lr mlp; do
  name=$([ $app = lr ] && echo logreg || echo mlp)
  gzip -n -c $app.model >$app.model.gz
  { cat $app.model.gz; head -c 64 /dev/zero; } >${app}pad.model.gz
  { cat $app.model.gz; printf 'x'; } >${app}junk.model.gz
  expect_ok ${app}_model_gz "$DSANA" $name predict ${app}pad.model.gz d.svm --out p.${app}gz
  expect_refused ${app}_model_junk ${app}junk.model.gz "" "offset $(wc -c <$app.model.gz): trailing garbage" \
    "$DSANA" $name predict ${app}junk.model.gz d.svm --out p.${app}junk
done

note "8. kmeans --init-centroids: as strict as the model files"
printf '0.1 0.2 0.3 0.4 0.5\n-1 0 1 2 3\n' >init.ok
expect_ok init_ok "$DSANA" kmeans d.svm --k 2 --init-centroids init.ok --quiet --out km.ok
# bad_init NAME LINE KEYWORD: NAME.init (made by the caller) refused naming LINE
bad_init() {
  expect_refused "init_$1" "$1.init" "$2" "$3" "$DSANA" kmeans d.svm --k 2 --init-centroids "$1.init" --quiet \
    --out "km.$1"
}
printf '0.1 0.2 0.3 0.4 0.5\n-1 0 nan 2 3\n' >nan.init
bad_init nan 2 "'nan' is not a finite number"
printf '0.1 0.2 0.3 0.4 0.5\n-1 0 1 2 inf\n' >inf.init
bad_init inf 2 "'inf' is not a finite number"
printf '0.1 0.2 0.3 0.4\n-1 0 1 2 3\n' >narrow.init
bad_init narrow 1 "4 values, expected 5"
printf '0.1 0.2 0.3 0.4 0.5 9\n-1 0 1 2 3\n' >wide.init
bad_init wide 1 "6 values, expected 5"
printf '0.1 0.2 0.3 0.4 0.5\n-1 0 1 2 3 # last\n' >token.init
bad_init token 2 "'#' is not a finite number"
printf '0.1 0.2 0.3 0.4 0.5\n-1 0 1 2 3\n7 7 7 7 7\n' >extra.init
bad_init extra 3 "more than the 2 centroids"
printf '0.1 0.2 0.3 0.4 0.5\n-1 0\0001 2 3\n' >nul.init
bad_init nul 2 "NUL byte"
{ printf '0.1 0.2 0.3 0.4 0.5\n'; head -c 100000 /dev/zero | tr '\0' ' '; echo; } >long.init
bad_init long 2 "longer than"
{ printf '0.1 0.2 0.3 0.4 0.5\n-1 0 1 2 3\n' | gzip -n -c; printf 'x'; } >junk.init.gz
expect_refused init_gzjunk junk.init.gz "" "trailing garbage" "$DSANA" kmeans d.svm --k 2 --init-centroids junk.init.gz \
  --quiet --out km.gzjunk
expect_refused init_devzero "/dev/zero" 1 "NUL byte" "$DSANA" kmeans d.svm --k 2 --init-centroids /dev/zero --quiet \
  --out km.devzero

finish
