#!/usr/bin/env bash
# test_data_cli.sh - `dsana data convert|info|gen` end to end: generated
# data is deterministic and survives binary <-> libsvm conversions byte for
# byte; info reports shape and classes; an IDX pair converts; bad input and
# bad usage exit 2 with exactly one line on stderr naming the file (and line)
# and leave no output file; so does an output that cannot be written
# (checked before any work). If the Debian
# package dataset-fashion-mnist is installed, its train and test pairs are
# converted and checked (60000/10000 rows, 784 features, 10 classes).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
[ -n "${DSANA:-}" ] && [ -x "$DSANA" ] || die "DSANA is not set to an executable"
cd "$T"

# expect_exit CODE CASE FILE LINE OUT ARGS...: $DSANA data ARGS... must exit
# CODE with one stderr line containing FILE (and ":LINE: " unless LINE is
# ""), and leave nothing at OUT (unless OUT is "").
expect_exit() {
  local code=$1 case=$2 file=$3 line=$4 out=$5
  shift 5
  [ -z "$out" ] || rm -f "$out"
  run_capture "$case" "$DSANA" data "$@"
  local err="$case.err" problems=()
  [ "$RC" -eq "$code" ] || problems+=("exit $RC (expected $code)")
  [ "$(stderr_lines "$err")" -eq 1 ] || problems+=("$(stderr_lines "$err") lines on stderr (expected 1)")
  if [ -n "$file" ] && ! grep -qF -- "$file" "$err"; then problems+=("stderr does not name '$file'"); fi
  if [ -n "$line" ] && ! grep -qF -- "$file:$line: " "$err"; then problems+=("stderr does not name line $line"); fi
  if [ -n "$out" ] && [ -e "$out" ]; then problems+=("left $out behind"); fi
  if ls ./*.tmp.* >/dev/null 2>&1; then problems+=("left a temporary file: $(ls ./*.tmp.*)"); fi
  if [ "${#problems[@]}" -eq 0 ]; then
    pass "$case: exit $code: $(head -n 1 "$err")"
  else
    fail "$case: $(show_cmd "$DSANA" data "$@"): ${problems[*]}; stderr: $(head -c 400 "$err")"
  fi
}

# info_value FILE KEY: the value of "KEY: value" in dsana data info FILE.
info_value() {
  "$DSANA" data info "$1" | sed -n "s/^$2: //p"
}

check_eq() { # WHAT GOT WANT
  if [ "$2" = "$3" ]; then pass "$1 = $3"; else fail "$1: got '$2', want '$3'"; fi
}

# ------------------------------------------------------------ help
for sub in "" convert info gen; do
  # shellcheck disable=SC2086
  if "$DSANA" data $sub --help >help.out 2>&1 && grep -q "usage: dsana data" help.out; then
    pass "dsana data $sub --help"
  else
    fail "dsana data $sub --help did not print usage with exit 0"
  fi
done

# ------------------------------------------------------------ gen, determinism, round trips
note "gen logreg"
"$DSANA" data gen logreg --samples 2000 --features 500 --nnz-per-row 12 --seed 5 --out a.bin >/dev/null
"$DSANA" data gen logreg --samples 2000 --features 500 --nnz-per-row 12 --seed 5 --out b.bin >/dev/null
"$DSANA" data gen logreg --samples 2000 --features 500 --nnz-per-row 12 --seed 6 --out c.bin >/dev/null
if cmp -s a.bin b.bin; then pass "same seed, same bytes"; else fail "same seed gave different files"; fi
if cmp -s a.bin c.bin; then fail "seeds 5 and 6 gave the same file"; else pass "other seed, other data"; fi
DSANA_IO_THREADS=1 "$DSANA" data gen logreg --samples 2000 --features 500 --nnz-per-row 12 --seed 5 \
  --out one_thread.bin >/dev/null
if cmp -s a.bin one_thread.bin; then pass "one thread, same bytes"; else fail "thread count changed the file"; fi
check_eq "rows" "$(info_value a.bin rows)" 2000
check_eq "features" "$(info_value a.bin features)" 500
check_eq "nnz" "$(info_value a.bin nnz)" 24000
check_eq "value_type" "$(info_value a.bin value_type)" float
check_eq "classes" "$(info_value a.bin classes)" 2
neg=$(info_value a.bin "label -1")
pos=$(info_value a.bin "label 1")
check_eq "class counts add up" "$((neg + pos))" 2000
# a held-out set from the same hidden model: rows N.. of the same sequence
"$DSANA" data gen logreg --samples 150 --features 60 --nnz-per-row 5 --classes 3 --seed 9 --out all.svm >/dev/null
"$DSANA" data gen logreg --samples 100 --features 60 --nnz-per-row 5 --classes 3 --seed 9 --out tr.svm \
  --test-out te.svm --test-samples 50 >/dev/null
if head -n 100 all.svm | cmp -s - tr.svm && tail -n 50 all.svm | cmp -s - te.svm; then
  pass "--test-out: the next 50 rows of the same sequence (same model and distribution)"
else
  fail "--test-out: train and test are not rows 0..99 and 100..149 of the 150-row set"
fi

note "binary <-> libsvm"
"$DSANA" data gen logreg --samples 300 --features 40 --nnz-per-row 6 --classes 4 --seed 2 --out g.svm >/dev/null
"$DSANA" data convert g.svm g.bin >/dev/null
"$DSANA" data convert g.bin g2.svm >/dev/null
if cmp -s g.svm g2.svm; then pass "svm -> bin -> svm is byte-identical"; else fail "svm -> bin -> svm differs"; fi
gzip -c g.svm >g.svm.gz
"$DSANA" data convert g.svm.gz gz.bin >/dev/null
if cmp -s g.bin gz.bin; then pass "gzip input converts to the same binary"; else fail "gzip input differs"; fi
check_eq "4-class rows" "$(info_value g.bin rows)" 300
check_eq "4 classes" "$(info_value g.bin classes)" 4
check_eq "text value type" "$(info_value g.bin value_type)" double

note "IDX pair"
printf '\0\0\x08\x03\0\0\0\x02\0\0\0\x02\0\0\0\x02\0\xff\x01\0\0\0\0\0' >im.idx
printf '\0\0\x08\x01\0\0\0\x02\x07\x03' >lb.idx
gzip -c im.idx >im.idx.gz
if "$DSANA" data convert --idx im.idx.gz lb.idx idx.svm >/dev/null; then
  check_eq "IDX as libsvm" "$(tr '\n' '|' <idx.svm)" "7 2:1 3:0.00392156886|3|"
else
  fail "convert --idx of a 2-image pair failed"
fi

# ------------------------------------------------------------ bad input: exit 2, one line
note "bad input"
printf '1 1:1\n-1 2:1 1:3\n' >desc.svm
printf '1 1:1\n\n1 0:1\n' >zero.svm
printf '# header\n+1 1:0.5\nabc 2:1\n' >label.svm
printf '1 qid:1 1:1\n' >qid.svm
printf '# only a comment\n' >empty.svm
expect_exit 2 descending desc.svm 2 out.bin convert desc.svm out.bin
expect_exit 2 index0 zero.svm 3 out.bin convert zero.svm out.bin
expect_exit 2 label label.svm 3 out.bin convert label.svm out.bin
expect_exit 2 qid qid.svm 1 "" info qid.svm
expect_exit 2 empty empty.svm "" out.bin convert empty.svm out.bin
expect_exit 2 missing no_such.svm "" out.bin convert no_such.svm out.bin
head -c 300 a.bin >trunc.bin
expect_exit 2 truncated trunc.bin "" out.svm convert trunc.bin out.svm
cp a.bin flip.bin
printf '\x55' | dd of=flip.bin bs=1 seek=5000 conv=notrunc status=none
expect_exit 2 crc flip.bin "" "" info flip.bin
grep -q "CRC-32 mismatch" crc.err && pass "damaged binary: CRC-32 named" || fail "damaged binary: $(cat crc.err)"
expect_exit 2 idx_as_text im.idx "" out.bin convert im.idx out.bin
printf '\0\0\x08\x01\0\0\0\x03\x07\x03\x01' >lb3.idx
expect_exit 2 idx_counts lb3.idx "" out.bin convert --idx im.idx lb3.idx out.bin
expect_exit 2 idx_swapped lb.idx "" out.bin convert --idx lb.idx im.idx out.bin

# ------------------------------------------------------------ bad usage: exit 2, one line
note "bad usage"
expect_exit 2 no_sub "" "" ""
expect_exit 2 bad_sub "frobnicate" "" "" frobnicate
expect_exit 2 convert_args "" "" "" convert only_one
expect_exit 2 idx_args "" "" "" convert --idx a b
expect_exit 2 unknown_opt "--bogus" "" "" info --bogus a.bin
expect_exit 2 gen_kind "" "" "" gen kron --samples 1 --features 1 --nnz-per-row 1 --out x.bin
expect_exit 2 gen_required "" "" x.bin gen logreg --samples 10 --out x.bin
expect_exit 2 gen_number "--samples" "" x.bin gen logreg --samples ten --features 5 --nnz-per-row 1 --out x.bin
expect_exit 2 gen_classes "classes" "" x.bin gen logreg --samples 10 --features 5 --nnz-per-row 1 --classes 1 --out x.bin
expect_exit 2 gen_nnz "features" "" x.bin gen logreg --samples 10 --features 5 --nnz-per-row 6 --out x.bin
expect_exit 2 gen_test_pair "test-samples" "" x.bin gen logreg --samples 10 --features 5 --nnz-per-row 1 --out x.bin \
  --test-out y.bin
# an output that cannot be written is found before any work
expect_exit 2 unwritable "no_dir/out.bin" "" "" convert g.svm no_dir/out.bin

# ------------------------------------------------------------ Fashion-MNIST, when installed
FM=/usr/share/datasets/fashion-mnist
if [ -r "$FM/train-images-idx3-ubyte.gz" ] && [ -r "$FM/t10k-labels-idx1-ubyte.gz" ]; then
  note "Fashion-MNIST from $FM"
  "$DSANA" data convert --idx "$FM/train-images-idx3-ubyte.gz" "$FM/train-labels-idx1-ubyte.gz" fm_train.bin >/dev/null
  "$DSANA" data convert --idx "$FM/t10k-images-idx3-ubyte.gz" "$FM/t10k-labels-idx1-ubyte.gz" fm_test.bin >/dev/null
  check_eq "Fashion-MNIST train rows" "$(info_value fm_train.bin rows)" 60000
  check_eq "Fashion-MNIST test rows" "$(info_value fm_test.bin rows)" 10000
  check_eq "Fashion-MNIST features" "$(info_value fm_train.bin features)" 784
  check_eq "Fashion-MNIST test features" "$(info_value fm_test.bin features)" 784
  check_eq "Fashion-MNIST train classes" "$(info_value fm_train.bin classes)" 10
  check_eq "Fashion-MNIST test classes" "$(info_value fm_test.bin classes)" 10
  check_eq "Fashion-MNIST train rows of class 9" "$(info_value fm_train.bin "label 9")" 6000
else
  note "SKIP part: Fashion-MNIST not installed (apt-get install dataset-fashion-mnist to run it)"
fi
finish
