#!/bin/bash
# Regenerates the "Picture quality" table of docs/PERFORMANCE.md: Vitrine, chafa, timg and
# catimg on the same images, sizes and colour modes, scored in the same run.
#   scripts/quality.sh [TOOLS_DIR]
#     TOOLS_DIR  holds peers.sh and ansi_quality.py (default: ../shared/tools beside the repo,
#                or $VITRINE_SHARED_TOOLS)
#   VITRINE_BIN  the binary to measure (default .build/release/vitrine; build it first)
# Images: a natural photo (mate nature/LadyBird.jpg, 2560x1600), a big progressive JPEG
# (mate abstract/Elephants_5640x3172.jpg), a synthetic chart (Resources/demo/pictures/
# test-chart.png) and, made by scripts/make-quality-images.py in a temporary folder, a zone
# plate in a 4000x3000 JPEG and two sets of flat patches (the 24 ColorChecker patches, 24 flag
# colours), at 80x40 cells (QUALITY_SIZES, default 80x40), truecolor, 256 and 16 colours.
# Needs: apt-get install chafa timg catimg mate-backgrounds python3-numpy python3-pil
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=${1:-${VITRINE_SHARED_TOOLS:-$REPO/../shared/tools}}
BIN=${VITRINE_BIN:-$REPO/.build/release/vitrine}
PY=/usr/bin/python3
fail() { echo "quality.sh: $*" >&2; exit 69; }
[ -f "$TOOLS/peers.sh" ] && [ -f "$TOOLS/ansi_quality.py" ] ||
  fail "peers.sh and ansi_quality.py not found in '$TOOLS' (pass the shared tools folder as the first argument)"
[ -x "$BIN" ] || fail "no vitrine binary at $BIN: run 'make build' (swift build -c release --static-swift-stdlib) or set VITRINE_BIN"
[ -x "$PY" ] || fail "$PY not found"
"$PY" -c 'import numpy, PIL' 2>/dev/null || fail "the scorer needs python3-numpy and python3-pil"
for tool in chafa timg catimg; do command -v "$tool" >/dev/null || fail "$tool not installed (apt-get install $tool)"; done
SYNTH=$(mktemp -d /tmp/vitrine-quality-images.XXXXXX)
trap 'rm -rf "$SYNTH"' EXIT
"$PY" "$REPO/scripts/make-quality-images.py" "$SYNTH"
IMAGES=(/usr/share/backgrounds/mate/nature/LadyBird.jpg
        /usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg
        "$REPO/Resources/demo/pictures/test-chart.png"
        "$SYNTH/zone-plate-4000x3000.jpg" "$SYNTH/colorchecker.png" "$SYNTH/flag-colours.png")
for image in "${IMAGES[@]}"; do [ -f "$image" ] || fail "missing $image (apt-get install mate-backgrounds)"; done

echo "<!-- scripts/quality.sh, $(date -u +%Y-%m-%d), $("$BIN" --version), $(chafa --version | head -1 | awk '{print "chafa", $3}'), $(timg --version 2>&1 | head -1 | awk '{print "timg", $2}'), catimg $(dpkg-query -W -f '${Version}' catimg 2>/dev/null || echo '?') -->"
"$PY" "$REPO/scripts/quality_table.py" --vitrine "$BIN" --tools "$TOOLS" --sizes "${QUALITY_SIZES:-80x40}" \
  --modes truecolor,256,16 "${IMAGES[@]}"
