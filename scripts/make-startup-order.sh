#!/bin/bash
# Regenerates scripts/startup-symbols.order, the symbol ordering file the release link passes to
# lld (Package.swift, `--symbol-ordering-file`): every function of the vitrine binary that a
# few one-shot runs execute (render of a 1x1 PNG, a 512x512 PNG and a photo in 256 colours,
# --version), so lld lays them out together. The kernel maps a binary's code in 64 KiB windows
# around each page fault; scattered over a 70 MB binary, the 0.37 MB of start-up code filled
# about 100 windows (6.5 MB of resident text); packed, a handful (docs/PERFORMANCE.md, issue 14).
# Symbols that later disappear are ignored by the link (--no-warn-symbol-ordering); rerun this
# after large changes. Needs valgrind and a release build (make build).
#   scripts/make-startup-order.sh [BINARY]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$REPO/.build/release/vitrine}
command -v valgrind >/dev/null || { echo "make-startup-order.sh: valgrind not installed" >&2; exit 69; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# valgrind cannot read the debug info lld writes; symbols are enough.
cp "$BIN" "$TMP/vitrine" && strip -g "$TMP/vitrine"
PHOTO=/usr/share/backgrounds/mate/nature/LadyBird.jpg
[ -f "$PHOTO" ] || PHOTO=$REPO/Tests/Fixtures/images/progressive.jpg
runs=("render --size 80x40 --colors truecolor $REPO/Tests/Fixtures/images/1x1.png"
      "render --size 80x40 --colors truecolor $REPO/Resources/demo/pictures/colour-wheel.png"
      "render --size 80x40 --colors 256 $PHOTO"
      "--version")
i=0
for args in "${runs[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$TMP/run-$i.out" "$TMP/vitrine" $args >/dev/null 2>&1
done
for f in "$TMP"/run-*.out; do
  callgrind_annotate --threshold=100 "$f" 2>/dev/null | grep -F "[$TMP/vitrine]" |
    sed -E 's/^ *[0-9,]+ +\([ 0-9.]+%\) +[^:]*:(.*) \[[^]]*\]$/\1/'
done | grep -v '^0x' | sed "s/'[0-9]*$//" | sort -u > "$REPO/scripts/startup-symbols.order"
echo "scripts/startup-symbols.order: $(wc -l < "$REPO/scripts/startup-symbols.order") symbols"
