#!/usr/bin/env bash
# test_binary_graph_checked.sh - a damaged or inconsistent binary graph is
# refused before anything reads it (exit 2, one line naming the file and
# the section): a flipped bit in any section (each has a CRC32), and files
# whose checksums were made to match but break what the writer guarantees
# (out-degrees zeroed or huge, a source past n, an original id given
# twice). Each once through `dsana pagerank` (launcher and roles) and
# `dsana graph info`. A file of an older format version is refused with a
# word to reconvert.
# timeout: 30 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is missing (patches the files' checksums)"

# patch IN OUT SECTION INDEX VALUE [reseal]: OUT is IN with element INDEX of
# SECTION (0 in_off, 1 in_src, 2 out_deg, 3 orig_id) set to VALUE ("flip":
# bit 2 of its first byte flipped); reseal: the section's and the header's
# CRC32 made to match again (a writer's bug, not a damaged disk).
patch() {
  /usr/bin/python3 - "$@" <<'PY'
import struct, sys, zlib
src, dst, sec, idx, val = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
reseal = len(sys.argv) > 6
b = bytearray(open(src, 'rb').read())
off, _ = struct.unpack_from('<QQ', b, 40 + 16 * sec)
fmt = '<Q' if sec in (0, 3) else '<I'
at = off + idx * struct.calcsize(fmt)
if val == 'flip':
    b[at] ^= 4
else:
    struct.pack_into(fmt, b, at, int(val))
if reseal:
    for s in range(6):
        o, n = struct.unpack_from('<QQ', b, 40 + 16 * s)
        struct.pack_into('<I', b, 144 + 4 * s, zlib.crc32(bytes(b[o:o + n])))
    struct.pack_into('<I', b, 184, zlib.crc32(bytes(b[:184])))
open(dst, 'wb').write(b)
PY
}

# expect_refused CASE FILE KEYWORD: pagerank and graph info both refuse FILE.
expect_refused() {
  local case=$1 file=$2 keyword=$3 cmd
  for cmd in pagerank info; do
    local c=("$DSANA" pagerank "$file" --workers 2 --servers 2 --out "out.$case")
    [ "$cmd" = info ] && c=("$DSANA" graph info "$file")
    run_capture "$case.$cmd" "${c[@]}"
    refusal_problems "$case.$cmd.err" "$file" "" "$keyword"
    [ -e "out.$case" ] && PROBLEMS+=("left a file at --out")
    if [ "${#PROBLEMS[@]}" -eq 0 ]; then
      pass "$case ($cmd): exit 2: $(head -n 1 "$case.$cmd.err")"
    else
      fail "$case ($cmd): $(show_cmd "${c[@]}"): ${PROBLEMS[*]}; stderr: $(head -c 400 "$case.$cmd.err")"
    fi
  done
}

# 15 vertices with sparse original ids (10, 20, ..., 150): a ring plus chords.
awk 'BEGIN { for (i = 0; i < 15; i++) { print (i + 1) * 10 "\t" ((i + 1) % 15 + 1) * 10; print (i + 1) * 10 "\t" ((i * 4 + 2) % 15 + 1) * 10 } }' >g.txt
"$DSANA" graph convert g.txt g.bin >/dev/null
run_capture good "$DSANA" pagerank g.bin --out good.out
[ "$RC" -eq 0 ] || die "the good graph: exit $RC: $(cat good.err)"

note "a flipped bit in each section"
patch g.bin flip_off.bin 0 3 flip
patch g.bin flip_src.bin 1 7 flip
patch g.bin flip_deg.bin 2 4 flip
patch g.bin flip_id.bin 3 13 flip # the id printed as 34359738382 before
expect_refused flip_off flip_off.bin "in_off section checksum mismatch"
expect_refused flip_src flip_src.bin "in_src section checksum mismatch"
expect_refused flip_deg flip_deg.bin "out_deg section checksum mismatch"
expect_refused flip_id flip_id.bin "orig_id section checksum mismatch"

note "checksums that match, invariants that do not"
patch g.bin zero_deg.bin 2 5 0 reseal
patch g.bin huge_deg.bin 2 5 4000000000 reseal
patch g.bin big_src.bin 1 18 4294967295 reseal
patch g.bin dup_id.bin 3 1 10 reseal
expect_refused zero_deg zero_deg.bin "out_deg[5] = 0, but 2 edges leave vertex 5"
expect_refused huge_deg huge_deg.bin "out_deg[5] = 4000000000"
expect_refused big_src big_src.bin "in_src[18] = 4294967295: not below n = 15"
expect_refused dup_id dup_id.bin "original id 10 given to two vertices"

note "an older format version"
cp "$DSANA_SRC/tests/data/v1_snap_basic.dsg" old.dsg
expect_refused old old.dsg "reconvert"
finish
