#!/usr/bin/env bash
# check-calls.sh [ROOT] - fail when the source files of one folder call in a
# circle: the files of a role must call in one direction only
# (docs/design.md). File A calls file B when A calls a function that B
# defines (a non-static name at column 0 before '('), outside comments and
# literals, and A does not define that name itself. A circle is a strongly
# connected component of that graph inside one folder: two files calling
# each other, or three or more calling round.
#
# Prints each circle with its files and one function per call between them
# (the first by name); exits 1 if there is any that scripts/check-calls.allow
# does not list, or if that file lists a circle that is no longer there.
# ROOT (default: this repository) holds src/, apps/ and cli/; the planted
# circles of tests/source/test_check_calls.sh use it.
#
# One awk pass over all files (plain POSIX awk: mawk, gawk, busybox), so it
# runs in about a second however many files a folder has.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

shopt -s nullglob
files=(src/*/*.c src/*/*/*.c apps/*/*.c cli/*.c)
allow=scripts/check-calls.allow
[ -f "$allow" ] || allow=/dev/null
[ ${#files[@]} -gt 0 ] || {
  echo "check-calls: no source files under $PWD" >&2
  exit 2
}

read -r -d '' prog <<'AWK' || true
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
function base(p) { sub(/.*\//, "", p); return p }
# Tarjan's strongly connected components, from node v
function visit(v, i, j, w, n, m, key, members, desc, x, y) {
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
  for (i = 1; i <= n; i++) key = key " " file[comp[i]]
  key = sorted_words(key)
  m = split(key, members, " ")
  if (m == 2) {
    x = node[members[1]]; y = node[members[2]]
    desc = members[1] " and " members[2] " call each other (" members[1] " calls " edge[x, y] ", " members[2] " calls " edge[y, x] ")"
  } else {
    desc = m " files of " dir[v] " call in a circle:"
    for (i = 1; i <= m; i++) {
      x = node[members[i]]
      for (j = 1; j <= m; j++) {
        y = node[members[j]]
        if ((x, y) in edge) desc = desc "\n  " base(members[i]) " calls " edge[x, y] " (" base(members[j]) ")"
      }
    }
  }
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
FNR == 1 {
  f = ++nfiles
  file[f] = FILENAME
  node[FILENAME] = f
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
    g = definer[dir[f], name]
    if (!((f, g) in edge)) adj[f, ++nadj[f]] = g
    if (!((f, g) in edge) || name < edge[f, g]) edge[f, g] = name
  }
  for (v = 1; v <= nfiles; v++) if (!(v in order)) visit(v)
  for (k in allowed) if (allowed[k] == 1) {
    print "stale entry in " allowfile " (no longer a circle, remove it): " k
    bad++
  }
  exit (bad > 0)
}
AWK

if awk -v allowfile="$allow" "$prog" "${files[@]}"; then
  if [ "$allow" = /dev/null ]; then
    echo "check-calls: the files of every folder call one way"
  else
    echo "check-calls: the files of every folder call one way, but for the circles $allow allows"
  fi
else
  echo "check-calls: files calling in a circle (see above)" >&2
  exit 1
fi
