#!/bin/bash
# Pixel-protocol benchmarks (docs/PERFORMANCE.md, "Real pixels"):
#  1. sixel: `vitrine render --pixels sixel` against img2sixel and chafa -f sixels on the same
#     1200x800 photo, in one interleaved run: wall and CPU time, bytes, and PSNR of the output
#     decoded by ImageMagick against the photo;
#  2. protocols: `vitrine render` of a 4000x3000 JPEG in 120x40 cells of 10x20 pixels (the
#     assumed cell off a terminal: a 1200x800-pixel box) with each --pixels, output to a pipe.
#   scripts/bench-pixels.sh [RUNS]        RUNS: interleaved runs per command (default 11)
#   VITRINE_BIN  the binary (default .build/release/vitrine; build with make build)
# Needs: libsixel-bin (img2sixel), chafa, imagemagick, libvips-tools, mate-backgrounds, GNU time.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-11}
BIN=${VITRINE_BIN:-$REPO/.build/release/vitrine}
fail() { echo "bench-pixels.sh: $*" >&2; exit 69; }
[ -x "$BIN" ] || fail "no vitrine binary at $BIN: run 'make build' or set VITRINE_BIN"
[ -x /usr/bin/time ] || fail "GNU time not found at /usr/bin/time (apt-get install time)"
for tool in img2sixel chafa convert compare vips; do command -v "$tool" >/dev/null || fail "$tool not installed"; done
LADYBIRD=/usr/share/backgrounds/mate/nature/LadyBird.jpg
ELEPHANTS=/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg
for f in "$LADYBIRD" "$ELEPHANTS"; do [ -f "$f" ] || fail "missing $f (apt-get install mate-backgrounds)"; done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# 1200x800: LadyBird (2560x1600) scaled to 1280x800 and centre-cropped; 4000x3000 as bench-render.sh.
vips thumbnail "$LADYBIRD" "$TMP/photo-1200x800.jpg[Q=90,strip]" 1200 --height 800 --crop centre
vips thumbnail "$ELEPHANTS" "$TMP/photo-4000x3000.jpg[Q=90,strip]" 4000 --height 3000 --crop centre
echo "<!-- scripts/bench-pixels.sh, $(date -u +%Y-%m-%d), $("$BIN" --version), img2sixel $(img2sixel -V 2>&1 | head -1 | awk '{print $2}'), $(chafa --version | head -1), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) -->"
exec /usr/bin/python3 "$REPO/scripts/bench_pixels.py" --vitrine "$BIN" --runs "$RUNS" --tmp "$TMP" \
  --sixel-photo "$TMP/photo-1200x800.jpg" --big-photo "$TMP/photo-4000x3000.jpg"
