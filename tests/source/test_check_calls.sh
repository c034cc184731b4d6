#!/usr/bin/env bash
# test_check_calls.sh - scripts/check-calls.sh against planted trees: a
# three-file circle and a two-file pair fail and are named with one
# function per call; a tree calling one way passes; an allowed circle
# passes and a stale allowlist entry fails; comments and literals do not
# call, nested calls do. Then the graphs beyond the source scan: a
# three-file circle that only the objects' symbols show (an ops table
# referred to by address) fails with --objects (nm) and not without; a
# three-header include circle fails; two folders calling (nm) or
# including each other fail, and so do two rooms of cli/ (a sub-folder
# deep, their headers named from the root) including each other. Under every awk found here (mawk, gawk,
# busybox), so the check holds on a machine whose awk is any of them.
# timeout: 30 s
set -euo pipefail
SRC=${DSANA_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/integration/lib.sh
source "$SRC/tests/integration/lib.sh"
CHECK=$SRC/scripts/check-calls.sh

# plant DIR FILE BODY: write DIR/src/x/FILE with BODY
plant() {
  mkdir -p "$1/src/x"
  printf '%s\n' "$3" >"$1/src/x/$2"
}

# A one-way tree: a.c -> b.c -> c.c; c.c mentions a_entry in a comment and
# a string only, and defines a static function of a.c's name.
clean=$T/clean
plant "$clean" a.c '#include "x.h"
int a_entry(int v) { return b_step(v) + 1; }'
plant "$clean" b.c 'int b_step(int v) { return c_leaf(v) * 2; }'
plant "$clean" c.c '/* c_leaf never calls a_entry(v): the comment does not count */
static int a_local(int v) { return v; }
int c_leaf(int v) {
  const char *s = "a_entry(";
  char q = '"'"'"'"'"';
  // a_entry(v) in a line comment
  return a_local(v) + (int)s[0] + q;
}'

# The same tree with c.c calling a.c back, nested in another call: a circle of three.
circle=$T/circle
cp -r "$clean" "$circle"
plant "$circle" c.c 'int c_leaf(int v) { return abs(a_entry(v)); }'

# A two-file pair: b.c and c.c call each other.
pair=$T/pair
cp -r "$clean" "$pair"
plant "$pair" c.c 'int c_leaf(int v) { return v > 0 ? b_step(v - 1) : 0; }'

# A circle only the symbols show: c.c takes the address of a.c's ops
# table (no call in the source). Objects where CMake puts them.
symcircle=$T/symcircle
cp -r "$clean" "$symcircle"
printf 'int b_step(int v);\n' >"$symcircle/src/x/x.h"
plant "$symcircle" a.c '#include "x.h"
int a_op(int v);
int a_op(int v) { return v; }
int (*const a_ops[1])(int) = {a_op};
int a_entry(int v);
int a_entry(int v) { return b_step(v) + 1; }'
plant "$symcircle" b.c 'int c_leaf(int v);
int b_step(int v);
int b_step(int v) { return c_leaf(v) * 2; }'
plant "$symcircle" c.c 'extern int (*const a_ops[1])(int);
int c_leaf(int v);
int c_leaf(int v) { return a_ops[0](v); }'
# The same tree calling one way, its build holding a stale object: 0old.c
# was moved away (its object, first by name, defines c_leaf and takes
# a_ops: counted, it would close a circle).
symclean=$T/symclean
cp -r "$symcircle" "$symclean"
plant "$symclean" c.c 'int c_leaf(int v);
int c_leaf(int v) { return v - 1; }'
CC=${CC:-cc}
command -v "$CC" >/dev/null && command -v nm >/dev/null || skip "no C compiler ($CC) or nm to build the planted objects"
for tree in symcircle symclean; do
  objs=$T/build-$tree/CMakeFiles/x.dir/src/x
  mkdir -p "$objs"
  for f in a b c; do
    "$CC" -c -o "$objs/$f.c.o" "$T/$tree/src/x/$f.c" || die "cannot compile the planted $tree/$f.c"
  done
done
cp "$T/build-symcircle/CMakeFiles/x.dir/src/x/c.c.o" "$T/build-symclean/CMakeFiles/x.dir/src/x/0old.c.o"

# An include circle of three headers (guarded, so it compiles, but
# none can be read first).
inccircle=$T/inccircle
cp -r "$clean" "$inccircle"
plant "$inccircle" x.h '#include "y.h"'
plant "$inccircle" y.h '#include "z.h"'
plant "$inccircle" z.h '#include "x.h"'

# Two folders: src/p calls src/q and back (nm), and includes it and back.
folders=$T/folders
mkdir -p "$folders/src/p" "$folders/src/q"
printf 'int p_fn(int v);\n' >"$folders/src/p/p.h"
printf 'int q_fn(int v);\n' >"$folders/src/q/q.h"
printf '#include "q/q.h"\nint p_fn(int v);\nint p_fn(int v) { return v > 0 ? q_fn(v - 1) : 0; }\n' >"$folders/src/p/p.c"
printf '#include "p/p.h"\nint q_fn(int v) { return p_fn(v); }\n' >"$folders/src/q/q.c"
fobjs=$T/build-folders/CMakeFiles/pq.dir/src
mkdir -p "$fobjs/p" "$fobjs/q"
for f in p/p q/q; do
  "$CC" -I"$folders/src" -c -o "$fobjs/$f.c.o" "$folders/src/$f.c" || die "cannot compile the planted $f.c"
done

# Two rooms of cli/, cli/a and cli/b, each including the other's header
# by its path from the root.
clirooms=$T/clirooms
mkdir -p "$clirooms/cli/a" "$clirooms/cli/b"
printf 'int a_fn(int v);\n' >"$clirooms/cli/a/a.h"
printf 'int b_fn(int v);\n' >"$clirooms/cli/b/b.h"
printf '#include "cli/b/b.h"\nint a_fn(int v) { return b_fn(v); }\n' >"$clirooms/cli/a/a.c"
printf '#include "cli/a/a.h"\nint b_fn(int v) { return v; }\n' >"$clirooms/cli/b/b.c"

awks=()
for a in mawk gawk original-awk busybox; do
  p=$(command -v "$a" || true)
  [ -n "$p" ] || continue
  mkdir -p "$T/bin-$a"
  if [ "$a" = busybox ]; then
    "$p" awk 'BEGIN {}' 2>/dev/null || continue # a busybox built without awk
    printf '#!/bin/sh\nexec %s awk "$@"\n' "$p" >"$T/bin-$a/awk"
    chmod +x "$T/bin-$a/awk"
  else
    "$p" 'BEGIN {}' 2>/dev/null || continue # an awk that does not start here
    ln -s "$p" "$T/bin-$a/awk"
  fi
  awks+=("$a")
done
[ ${#awks[@]} -gt 0 ] || awks=(default)

for a in "${awks[@]}"; do
  path=$PATH
  [ "$a" = default ] || path=$T/bin-$a:$PATH
  check() { PATH=$path bash "$CHECK" "$@"; }
  note "awk: $a"

  if check "$clean" >"$T/out" 2>&1; then
    pass "$a: a tree calling one way passes"
  else
    fail "$a: a tree calling one way fails: $(cat "$T/out")"
  fi

  RC=0
  check "$circle" >"$T/out" 2>&1 || RC=$?
  if [ "$RC" -eq 1 ] && grep -q '3 files of src/x call in a circle' "$T/out" &&
    grep -q 'a.c calls b_step (b.c)' "$T/out" && grep -q 'b.c calls c_leaf (c.c)' "$T/out" &&
    grep -q 'c.c calls a_entry (a.c)' "$T/out"; then
    pass "$a: a three-file circle fails, named with one function per call"
  else
    fail "$a: a three-file circle: exit $RC, $(cat "$T/out")"
  fi

  RC=0
  check "$pair" >"$T/out" 2>&1 || RC=$?
  if [ "$RC" -eq 1 ] &&
    grep -q 'src/x/b.c and src/x/c.c call each other (src/x/b.c calls c_leaf, src/x/c.c calls b_step)' "$T/out"; then
    pass "$a: two files calling each other fail"
  else
    fail "$a: a two-file pair: exit $RC, $(cat "$T/out")"
  fi

  mkdir -p "$circle/scripts"
  printf '# planted: allowed on purpose\nsrc/x/c.c   src/x/a.c src/x/b.c # any order\n' >"$circle/scripts/check-calls.allow"
  RC=0
  check "$circle" >"$T/out" 2>&1 || RC=$?
  if [ "$RC" -eq 0 ] && grep -q 'allowed in scripts/check-calls.allow: 3 files of src/x' "$T/out"; then
    pass "$a: an allowed circle is reported and passes"
  else
    fail "$a: an allowed circle: exit $RC, $(cat "$T/out")"
  fi

  mkdir -p "$clean/scripts"
  cp "$circle/scripts/check-calls.allow" "$clean/scripts/"
  RC=0
  check "$clean" >"$T/out" 2>&1 || RC=$?
  if [ "$RC" -eq 1 ] && grep -q 'stale entry in scripts/check-calls.allow' "$T/out"; then
    pass "$a: an allowlist entry that is no circle fails"
  else
    fail "$a: a stale allowlist entry: exit $RC, $(cat "$T/out")"
  fi
  rm -rf "$clean/scripts" "$circle/scripts"

  RC=0
  check "$symcircle" >"$T/out" 2>&1 || RC=$?
  if [ "$RC" -eq 0 ]; then
    pass "$a: without objects, a circle only the symbols show passes (the source scan cannot see it)"
  else
    fail "$a: the symbol-only circle without --objects: exit $RC, $(cat "$T/out")"
  fi
  if check --objects "$T/build-symclean" "$symclean" >"$T/out" 2>&1 && grep -q 'symbols (nm)' "$T/out"; then
    pass "$a: with --objects, a tree calling one way passes (an object whose source is gone is left out)"
  else
    fail "$a: a one-way tree with a stale object: $(cat "$T/out")"
  fi
  RC=0
  check --objects "$T/build-symcircle" "$symcircle" >"$T/out" 2>&1 || RC=$?
  if [ "$RC" -eq 1 ] && grep -q '3 files of src/x call in a circle (nm)' "$T/out" &&
    grep -q 'a.c calls b_step (b.c)' "$T/out" && grep -q 'b.c calls c_leaf (c.c)' "$T/out" &&
    grep -q 'c.c calls a_ops (a.c)' "$T/out"; then
    pass "$a: with --objects, a three-file circle of symbols fails, named with one symbol per arrow"
  else
    fail "$a: a three-file circle of symbols: exit $RC, $(cat "$T/out")"
  fi

  RC=0
  check "$inccircle" >"$T/out" 2>&1 || RC=$?
  if [ "$RC" -eq 1 ] && grep -q '3 files of src/x include in a circle' "$T/out" &&
    grep -q 'x.h includes y.h' "$T/out" && grep -q 'z.h includes x.h' "$T/out"; then
    pass "$a: three headers including round fail"
  else
    fail "$a: a three-header include circle: exit $RC, $(cat "$T/out")"
  fi

  RC=0
  check --objects "$T/build-folders" "$folders" >"$T/out" 2>&1 || RC=$?
  if [ "$RC" -eq 1 ] && grep -q '2 folders call in a circle (nm)' "$T/out" &&
    grep -q 'src/q -> src/p: q.c calls p_fn (p.c)' "$T/out" &&
    grep -q '2 folders include in a circle' "$T/out" && grep -q 'src/p -> src/q: p.c includes src/q/q.h' "$T/out"; then
    pass "$a: two folders calling and including each other fail"
  else
    fail "$a: two folders in a circle: exit $RC, $(cat "$T/out")"
  fi

  RC=0
  check "$clirooms" >"$T/out" 2>&1 || RC=$?
  if [ "$RC" -eq 1 ] && grep -q '2 folders include in a circle' "$T/out" &&
    grep -q 'cli/a -> cli/b: a.c includes cli/b/b.h' "$T/out" && grep -q 'cli/b -> cli/a: b.c includes cli/a/a.h' "$T/out"; then
    pass "$a: two rooms of cli/ including each other fail"
  else
    fail "$a: two cli rooms in a circle: exit $RC, $(cat "$T/out")"
  fi
done
finish
