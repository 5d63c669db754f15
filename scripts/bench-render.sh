#!/bin/bash
# Speed and memory of `vitrine render` against chafa, timg and catimg (docs/PERFORMANCE.md,
# "Render speed"), on a 4000x3000 baseline JPEG, a 2560x1600 photo (mate's LadyBird.jpg), a
# 512x512 PNG and a 1x1 PNG, at 80x40 cells, with two limits in the same run: libjpeg-turbo
# alone at 1/8 (scripts/jpeg_scale8.c, what `djpeg -scale 1/8` does; JPEGs only) and
# vipsthumbnail at Vitrine's decode box.
#   scripts/bench-render.sh [TOOLS_DIR] [RUNS]
#     TOOLS_DIR  holds peers.sh (default ../shared/tools beside the repo, or $VITRINE_SHARED_TOOLS)
#     RUNS       interleaved runs per tool and image (default 11)
#   VITRINE_BIN  the binary (default .build/release/vitrine; build with make build)
# The 4000x3000 JPEG is cut from mate-backgrounds' Elephants_5640x3172.jpg with vips (centre
# crop, baseline, quality 90) into a temporary folder. Needs: chafa timg catimg
# mate-backgrounds libvips-tools, GNU time (/usr/bin/time), cc and libjpeg62-turbo-dev.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=${1:-${VITRINE_SHARED_TOOLS:-$REPO/../shared/tools}}
RUNS=${2:-11}
BIN=${VITRINE_BIN:-$REPO/.build/release/vitrine}
fail() { echo "bench-render.sh: $*" >&2; exit 69; }
[ -f "$TOOLS/peers.sh" ] || fail "peers.sh not found in '$TOOLS' (pass the shared tools folder as the first argument)"
[ -x "$BIN" ] || fail "no vitrine binary at $BIN: run 'make build' (swift build -c release --static-swift-stdlib) or set VITRINE_BIN"
[ -x /usr/bin/time ] || fail "GNU time not found at /usr/bin/time (apt-get install time)"
for tool in chafa timg catimg vips; do command -v "$tool" >/dev/null || fail "$tool not installed"; done
SRC=/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg
[ -f "$SRC" ] || fail "missing $SRC (apt-get install mate-backgrounds)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
vips thumbnail "$SRC" "$TMP/photo-4000x3000.jpg[Q=90,strip]" 4000 --height 3000 --crop centre
cc -O2 -o "$TMP/jpeg_scale8" "$REPO/scripts/jpeg_scale8.c" -ljpeg || fail "cannot build scripts/jpeg_scale8.c (cc, libjpeg62-turbo-dev)"
echo "<!-- scripts/bench-render.sh, $(date -u +%Y-%m-%d), $("$BIN" --version), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) -->"
/usr/bin/python3 "$REPO/scripts/bench_render.py" --vitrine "$BIN" --tools "$TOOLS" --runs "$RUNS" \
  --jpeg-limit "$TMP/jpeg_scale8" --vipsthumbnail "$(command -v vipsthumbnail)" \
  "4000x3000 JPEG=$TMP/photo-4000x3000.jpg" \
  "2560x1600 JPEG=/usr/share/backgrounds/mate/nature/LadyBird.jpg" \
  "512x512 PNG=$REPO/Resources/demo/pictures/colour-wheel.png" \
  "1x1 PNG=$REPO/Tests/Fixtures/images/1x1.png"
