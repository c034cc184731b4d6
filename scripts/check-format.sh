#!/usr/bin/env bash
# check-format.sh - fail when a .c or .h file under src, apps, cli, include
# or tests is not laid out as .clang-format says (clang-format --dry-run
# -Werror names each file and line). Exits 77 (skipped) without
# clang-format, or with a major version other than the one .clang-format
# was tuned with: another version lays the same code out differently.
# To fix: clang-format -i FILE ...
set -euo pipefail
cd "$(dirname "$0")/.."

WANT_MAJOR=14
cf=""
for c in "clang-format-$WANT_MAJOR" clang-format; do
  if command -v "$c" >/dev/null; then
    cf=$c
    break
  fi
done
if [ -z "$cf" ]; then
  echo "check-format: no clang-format: skipped"
  exit 77
fi
major=$("$cf" --version | sed -nE 's/.*version ([0-9]+)\..*/\1/p')
if [ "$major" != "$WANT_MAJOR" ]; then
  echo "check-format: $cf is version ${major:-unknown}, .clang-format is tuned for $WANT_MAJOR: skipped"
  exit 77
fi
mapfile -t files < <(find src apps cli include tests -type f \( -name '*.c' -o -name '*.h' \) | sort)
if ! "$cf" --dry-run -Werror "${files[@]}"; then
  echo "check-format: files above are not formatted as .clang-format says (clang-format -i FILE)" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted as .clang-format says"
