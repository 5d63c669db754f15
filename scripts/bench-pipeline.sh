#!/usr/bin/env bash
# The image pipeline's benchmarks (docs/PERFORMANCE.md, "Image pipeline"). Prints Markdown.
#
#   scripts/bench-pipeline.sh [all|cache|thumbnails|calls|latency|memory]   (default all)
#
# Environment: SCRATCH (swift build --scratch-path, default .build), ROUNDS (thumbnail rounds,
# default 5), NO_BUILD (set: use the binaries already built), FILES (4000x3000 JPEGs to make for the thumbnail run, 12-48, default 48),
# LIMITS (memory-cache limits for the memory run, default "4M 16M"), ROW_HEIGHT (default 5).
# Needs: the Swift toolchain, libvips-tools (vips, vipsthumbnail), tmux, python3, GNU time.
# Everything runs on 127.0.0.1; servers, tmux sessions and the temporary JPEGs are removed.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
SCRATCH=${SCRATCH:-.build}
ROUNDS=${ROUNDS:-5}
FILES=${FILES:-48}
LIMITS=${LIMITS:-4M 16M}
ROW_HEIGHT=${ROW_HEIGHT:-5}

[ -n "${NO_BUILD:-}" ] || swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" >&2
BIN=$(swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --show-bin-path)
VITRINE=$BIN/vitrine
BENCH=$BIN/vitrine-bench

tmp=$(mktemp -d /tmp/vitrine-bench-pipeline.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# 4000x3000 JPEGs (quality 90) from mate-backgrounds' nature photos: each photo scaled to cover
# and centre-cropped, plus flipped and rotated copies so that every file is distinct.
make_jpegs() {
  local n=0 src b
  for src in /usr/share/backgrounds/mate/nature/*.jpg; do
    b=$(basename "$src" .jpg)
    vips thumbnail "$src" "$tmp/$b.jpg[Q=90]" 4000 --height 3000 --size both --crop centre
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || { echo "no photos in /usr/share/backgrounds/mate/nature (apt install mate-backgrounds)" >&2; exit 66; }
  for src in "$tmp"/*.jpg; do
    b=${src%.jpg}
    [ "$(ls "$tmp"/*.jpg | wc -l)" -ge "$FILES" ] && break
    vips flip "$src" "$b-h.jpg[Q=90]" horizontal
    vips flip "$src" "$b-v.jpg[Q=90]" vertical
    vips rot "$src" "$b-r.jpg[Q=90]" d180
  done
  ls "$tmp"/*.jpg | head -n "$FILES" > "$tmp/files.txt"
  cat $(cat "$tmp/files.txt") > /dev/null   # into the page cache
}

echo "<!-- scripts/bench-pipeline.sh $what, $(date -u +%Y-%m-%d), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(swift --version 2>&1 | head -1 | sed 's/ (.*//'), vips $(vips --version | sed 's/vips-//'), load $(cut -d' ' -f1-3 /proc/loadavg) -->"

if [ "$what" = all ] || [ "$what" = cache ]; then
  echo; echo "### Memory-cache hit"; echo
  "$BENCH" cache-hit
fi

if [ "$what" = all ] || [ "$what" = thumbnails ]; then
  echo; echo "### Thumbnails per second"; echo
  make_jpegs
  # GNU time around the whole run: peak memory of the bench process (the pipeline's side).
  /usr/bin/time -f "<!-- whole run: %e s wall, %U s user, %S s system, peak RSS %M KB (bench process; vipsthumbnail children separate) -->" \
    "$BENCH" thumbnails --rounds "$ROUNDS" $(cat "$tmp/files.txt")
fi

if [ "$what" = all ] || [ "$what" = calls ]; then
  echo; echo "### What load and cancel cost the UI thread (http, server delay 30 s)"; echo
  python3 Tests/Fixtures/galleryserver.py --root Resources/demo --delay 30 --max-seconds 120 \
    --log "$tmp/calls.log" --log-times > "$tmp/port" &
  server=$!
  for _ in $(seq 100); do grep -q PORT "$tmp/port" 2>/dev/null && break; sleep 0.05; done
  "$BENCH" calls "http://127.0.0.1:$(awk '{print $2}' "$tmp/port")" --count 300 || true
  kill "$server"; wait "$server" 2>/dev/null || true
fi

if [ "$what" = all ] || [ "$what" = latency ]; then
  echo; echo "### Key-press-to-frame latency while 500 rows load (server delay 2 s)"; echo
  python3 scripts/bench_pipeline.py latency "$VITRINE"
fi

if [ "$what" = all ] || [ "$what" = memory ]; then
  echo; echo "### Resident memory after 10,000 rows of a 4000x3000 JPEG"; echo
  [ -f "$tmp/files.txt" ] || make_jpegs
  photo=$(grep -m1 LadyBird "$tmp/files.txt" || head -1 "$tmp/files.txt")
  echo "| --memory-cache | row height (terminal) | base MiB | peak VmRSS MiB | at row 10,000 | back at row 1 | VmHWM MiB | image requests | time | VmRSS every ~2,000 rows |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for limit in $LIMITS; do
    python3 scripts/bench_pipeline.py memory "$VITRINE" "$photo" --limit "$limit" --row-height "$ROW_HEIGHT"
  done
fi
