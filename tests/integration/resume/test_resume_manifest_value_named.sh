#!/usr/bin/env bash
# test_resume_manifest_value_named.sh - a value `dsana APP --resume DIR`
# takes from the checkpoint's manifest and the app refuses (a manifest of
# an older dsana, or edited with its CRC made to match) is refused as the
# manifest's (exit 2, one line naming DIR/manifest), not as an option the
# user typed.
# timeout: 30 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is missing (rewrites the manifest's CRC)"
"$DSANA" graph gen kron --scale 6 --seed 3 --out g.txt >/dev/null || die "graph gen failed"
"$DSANA" pagerank g.txt --tol 0 --damping 0.8 --quiet --top 0 --max-iter 7 --checkpoint ck --checkpoint-every 5 \
  --out part.tsv || die "checkpointed run failed"
grep -q "^job param damping 0.8$" ck/manifest || die "no 'job param damping 0.8' line in ck/manifest"

# set_manifest_damping VALUE: the manifest's recorded --damping, its CRC line rewritten.
set_manifest_damping() {
  /usr/bin/python3 - "$1" <<'PY'
import sys, zlib
t = open('ck/manifest').read()
body = t[:t.index('crc ')]
body = '\n'.join('job param damping ' + sys.argv[1] if l.startswith('job param damping ') else l
                 for l in body.split('\n'))
open('ck/manifest', 'w').write(body + 'crc %08x\n' % zlib.crc32(body.encode()))
PY
}

for v in -0 1.5 nan; do
  set_manifest_damping "$v"
  run_capture "damping$v" "$DSANA" pagerank --resume ck --max-iter 12 --out resumed.tsv
  refusal_problems "damping$v.err" "ck/manifest" "" "--damping $v"
  grep -q "cannot resume from ck" "damping$v.err" || PROBLEMS+=("does not say the resume is refused")
  if [ "${#PROBLEMS[@]}" -eq 0 ]; then
    pass "a recorded --damping $v: $(cat "damping$v.err")"
  else
    fail "a recorded --damping $v: ${PROBLEMS[*]}; stderr: $(head -c 400 "damping$v.err")"
  fi
done

# The manifest put back as written: the run resumes.
set_manifest_damping 0.8
run_capture good "$DSANA" pagerank --resume ck --max-iter 12 --quiet --out resumed.tsv
[ "$RC" -eq 0 ] && pass "the recorded --damping 0.8 resumes" || fail "resume with the manifest as written: exit $RC: $(head -c 300 good.err)"
finish
