#!/usr/bin/env bash
# check-calls.sh [--objects BUILD] [ROOT] - fail when source files, or
# folders, depend on each other in a circle: the files of a folder call in
# one direction only, and so do the folders (docs/design.md: the
# runtime's rooms, the layers). Three graphs, each read two ways:
#
#   calls     file A calls file B when A calls a function that B defines
#             (a non-static name at column 0 before '('), outside comments
#             and literals, and A does not define that name itself (read
#             from the source, so it works without a build; same folder);
#   includes  A includes B ("x.h" beside A, or under src/, include/ or the
#             root, as the compiler's include path finds it);
#   symbols   with --objects BUILD: A's object (BUILD/**/*.dir/A.o, as
#             CMake names it) leaves undefined a global symbol that B's
#             object defines (`nm`): what the linker joins, macros and
#             inline helpers included. Objects whose source is gone are
#             left out (a build dir keeps them after a move).
#
# A circle is a strongly connected component, of the files of one folder
# (two files calling each other, or three or more calling round), or of
# the folders (an arrow from folder X to folder Y when a file of X calls
# or includes one of Y). Prints each circle with its members and one
# function or header per arrow between them (the first by name); exits 1
# if there is any that scripts/check-calls.allow does not list, or if
# that file lists a circle that is no longer there, 2 on bad usage.
# ROOT (default: this repository) holds src/, apps/, cli/ and include/;
# the planted circles of tests/source/test_check_calls.sh use it.
#
# Plain POSIX awk (mawk, gawk, busybox) and one nm run over every object:
# a second or two for the whole tree.
set -euo pipefail
objects=""
if [ "${1:-}" = --objects ]; then
  [ $# -ge 2 ] || {
    echo "check-calls: --objects needs a build folder" >&2
    exit 2
  }
  objects=$(cd "$2" && pwd)
  shift 2
fi
cd "${1:-$(dirname "$0")/..}"

shopt -s nullglob
files=(src/*/*.c src/*/*/*.c apps/*/*.c cli/*.c cli/*/*.c)
headers=(include/*/*.h src/*/*.h src/*/*/*.h apps/*/*.h cli/*.h cli/*/*.h)
allow=scripts/check-calls.allow
[ -f "$allow" ] || allow=/dev/null
[ ${#files[@]} -gt 0 ] || {
  echo "check-calls: no source files under $PWD" >&2
  exit 2
}
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

# calls: one awk pass over the sources prints "calls A B name" per arrow.
read -r -d '' calls_prog <<'AWK' || true
# strip(s): s without comments and string/char literals; incomment carries
# an open /* */ across lines.
function strip(s, out, t) {
  out = ""
  while (s != "") {
    if (incomment) {
      if (!index(s, "*/")) return out
      s = substr(s, index(s, "*/") + 2)
      incomment = 0
      continue
    }
    if (!match(s, /\/\*|\/\/|["']/)) return out s
    out = out substr(s, 1, RSTART - 1) " "
    t = substr(s, RSTART, RLENGTH)
    s = substr(s, RSTART + RLENGTH)
    if (t == "/*") incomment = 1
    else if (t == "//") return out
    else if (t == "\"" && match(s, /^([^"\\]|\\.)*"/)) s = substr(s, RLENGTH + 1)
    else if (t == "'" && match(s, /^([^'\\]|\\.)*'/)) s = substr(s, RLENGTH + 1)
    else if (t == "\"" || t == "'") return out # unterminated: the line ends it
  }
  return out
}
FNR == 1 {
  f = ++nfiles
  file[f] = FILENAME
  d = FILENAME
  sub(/\/[^\/]*$/, "", d)
  dir[f] = d
  incomment = 0
}
{
  s = strip($0)
  if (s ~ /^[a-z][a-zA-Z0-9_ *]*[ *][a-z_][a-z0-9_]*\(/) {
    name = substr(s, 1, index(s, "(") - 1)
    sub(/.*[^a-z0-9_]/, "", name)
    own[f, name] = 1
    if (s !~ /^static/ && !((dir[f], name) in definer)) definer[dir[f], name] = f
  }
  s = " " s
  while (match(s, /[^a-zA-Z0-9_][a-z_][a-z0-9_]*\(/)) {
    calls[f, substr(s, RSTART + 1, RLENGTH - 2)] = 1
    s = substr(s, RSTART + RLENGTH - 1) # keep the '(': it precedes the next name
  }
}
END {
  for (k in calls) {
    split(k, p, SUBSEP)
    f = p[1] + 0
    name = p[2]
    if ((f, name) in own || !((dir[f], name) in definer)) continue
    print "calls", file[f], file[definer[dir[f], name]], name
  }
}
AWK
awk "$calls_prog" "${files[@]}" >>"$edges"

# includes: "includes A B header" per project header A includes.
while IFS=: read -r file _ inc; do
  inc=${inc#*include}
  inc=${inc#"${inc%%[\"<]*}"}
  target=${inc:1}
  target=${target%%[\">]*}
  found=""
  if [[ $inc == \"* ]] && [ -f "${file%/*}/$target" ]; then
    found=${file%/*}/$target
  else
    for base in src include .; do
      if [ -f "$base/$target" ]; then
        found=${base#./}/$target
        found=${found#./}
        break
      fi
    done
  fi
  [ -z "$found" ] || echo "includes $file $found ${target##*/}"
done < <(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "${files[@]}" "${headers[@]}" || true) >>"$edges"

# symbols: "symbols A B name" per global symbol A's object takes from B's.
if [ -n "$objects" ]; then
  command -v nm >/dev/null || {
    echo "check-calls: --objects needs nm (binutils)" >&2
    exit 2
  }
  mapfile -t objs < <(find "$objects" -path '*.dir/*' -name '*.c.o' | sort)
  [ ${#objs[@]} -gt 0 ] || {
    echo "check-calls: no objects under $objects (build first)" >&2
    exit 2
  }
  # nm exits 1 on a file that is no object, after reading the others
  { nm -A -g "${objs[@]}" 2>/dev/null || true; } | awk -v known="${files[*]}" '
    BEGIN { n = split(known, kn, " "); for (i = 1; i <= n; i++) src[kn[i]] = 1 }
    {
      p = substr($0, 1, index($0, ":") - 1)
      sub(/.*\.dir\//, "", p)
      sub(/\.o$/, "", p)
      if (!(p in src)) next # a test, or an object whose source is gone
      n = split(substr($0, index($0, ":") + 1), w, " ")
      if (w[n - 1] == "U") use[p, w[n]] = 1
      else if (!(w[n] in def)) def[w[n]] = p
    }
    END {
      for (k in use) {
        split(k, q, SUBSEP)
        if ((q[2] in def) && def[q[2]] != q[1]) print "symbols", q[1], def[q[2]], q[2]
      }
    }' >>"$edges"
fi

# The circles: Tarjan's strongly connected components of each graph, per
# folder (nodes: files) and over the folders (nodes: folders).
read -r -d '' scc_prog <<'AWK' || true
function dirname(p) { sub(/\/[^\/]*$/, "", p); return p }
function base(p) { sub(/.*\//, "", p); return p }
# sorted_words(s): the words of s, sorted, joined by one space
function sorted_words(s, w, n, i, j, x, out) {
  n = split(s, w, " ")
  for (i = 2; i <= n; i++) {
    x = w[i]
    for (j = i - 1; j >= 1 && w[j] > x; j--) w[j + 1] = w[j]
    w[j + 1] = x
  }
  out = ""
  for (i = 1; i <= n; i++) out = out (i > 1 ? " " : "") w[i]
  return out
}
# arrow(g, a, b, label): one arrow of graph g, labelled with the first label by name
function arrow(g, a, b, label, x, y) {
  if (!((g, a) in id)) { id[g, a] = ++nodes; gname[nodes] = g; nname[nodes] = a }
  if (!((g, b) in id)) { id[g, b] = ++nodes; gname[nodes] = g; nname[nodes] = b }
  x = id[g, a]; y = id[g, b]
  if (!((x, y) in edge)) adj[x, ++nadj[x]] = y
  if (!((x, y) in edge) || label < edge[x, y]) edge[x, y] = label
}
function verb(g) { return g ~ /includes/ ? "include" : "call" }
function how(g) { return g ~ /symbols/ ? " (nm)" : "" }
function describe(g, m, members, i, j, x, y, desc, v) {
  v = verb(g)
  if (g ~ /^folders/) {
    desc = m " folders " v " in a circle" how(g) ":"
    for (i = 1; i <= m; i++) for (j = 1; j <= m; j++) {
      x = id[g, members[i]]; y = id[g, members[j]]
      if ((x, y) in edge) desc = desc "\n  " members[i] " -> " members[j] ": " edge[x, y]
    }
    return desc
  }
  if (m == 2) {
    x = id[g, members[1]]; y = id[g, members[2]]
    return members[1] " and " members[2] " " v " each other" how(g) " (" members[1] " " v "s " edge[x, y] ", " members[2] " " v "s " edge[y, x] ")"
  }
  desc = m " files of " dirname(members[1]) " " v " in a circle" how(g) ":"
  for (i = 1; i <= m; i++) for (j = 1; j <= m; j++) {
    x = id[g, members[i]]; y = id[g, members[j]]
    if ((x, y) in edge) desc = desc "\n  " base(members[i]) " " v "s " edge[x, y] (v == "call" ? " (" base(members[j]) ")" : "")
  }
  return desc
}
function visit(v, i, w, n, m, key, members, comp, desc) {
  order[v] = low[v] = ++counter
  stack[++sp] = v
  onstack[v] = 1
  for (i = 1; i <= nadj[v]; i++) {
    w = adj[v, i]
    if (!(w in order)) {
      visit(w)
      if (low[w] < low[v]) low[v] = low[w]
    } else if (onstack[w] && order[w] < low[v]) low[v] = order[w]
  }
  if (low[v] != order[v]) return
  n = 0
  do {
    w = stack[sp--]
    onstack[w] = 0
    comp[++n] = w
  } while (w != v)
  if (n < 2) return
  key = ""
  for (i = 1; i <= n; i++) key = key " " nname[comp[i]]
  key = sorted_words(key)
  m = split(key, members, " ")
  desc = describe(gname[v], m, members)
  if (key in allowed) {
    allowed[key] = 2
    print "allowed in " allowfile ": " desc
  } else {
    print desc
    bad++
  }
}
BEGIN {
  while ((getline line < allowfile) > 0) {
    sub(/#.*/, "", line)
    if (line ~ /[^ \t]/) { gsub(/[ \t]+/, " ", line); allowed[sorted_words(line)] = 1 }
  }
  close(allowfile)
}
{
  g = $1; a = $2; b = $3
  if (a == b) next
  da = dirname(a); db = dirname(b)
  if (da == db) arrow(g, a, b, $4)
  else if (g == "includes") arrow("folders-" g, da, db, base(a) " includes " b)
  else if (g == "symbols") arrow("folders-" g, da, db, base(a) " calls " $4 " (" base(b) ")")
}
END {
  for (v = 1; v <= nodes; v++) if (!(v in order)) visit(v)
  for (k in allowed) if (allowed[k] == 1) {
    print "stale entry in " allowfile " (no longer a circle, remove it): " k
    bad++
  }
  exit (bad > 0)
}
AWK

graphs="calls and includes"
[ -z "$objects" ] || graphs="calls, includes and symbols (nm)"
if sort "$edges" | awk -v allowfile="$allow" "$scc_prog"; then
  if [ "$allow" = /dev/null ] || ! grep -q '^[^#]' "$allow"; then
    echo "check-calls: by $graphs, the files of every folder, and the folders, depend one way"
  else
    echo "check-calls: by $graphs, the files of every folder, and the folders, depend one way, but for the circles $allow allows"
  fi
else
  echo "check-calls: circles by $graphs (see above)" >&2
  exit 1
fi
