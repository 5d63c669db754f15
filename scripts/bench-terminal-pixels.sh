#!/bin/bash
# Render-to-terminal time per protocol in real terminals (docs/PERFORMANCE.md, "Real pixels"):
# `vitrine render` of a 4000x3000 JPEG filling the window, timed inside the terminal from
# start to exit. The last write returns when the terminal has read all but the pty's buffer,
# so this is "until the terminal has taken the picture", not the GPU's draw.
#   kitty 0.26 (1210x820-pixel window, kitty graphics and half blocks) and xterm -ti vt340
#   (200x62 cells of 6x13, sixel and half blocks), each under its own Xvfb.
#   scripts/bench-terminal-pixels.sh [RUNS]     RUNS per protocol, interleaved (default 7)
#   VITRINE_BIN  the binary (default .build/release/vitrine)
# Needs: xvfb kitty xterm xfonts-base libvips-tools mate-backgrounds.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-7}
BIN=${VITRINE_BIN:-$REPO/.build/release/vitrine}
fail() { echo "bench-terminal-pixels.sh: $*" >&2; exit 69; }
[ -x "$BIN" ] || fail "no vitrine binary at $BIN: run 'make build' or set VITRINE_BIN"
for tool in Xvfb kitty xterm vips; do command -v "$tool" >/dev/null || fail "$tool not installed"; done
SRC=/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg
[ -f "$SRC" ] || fail "missing $SRC (apt-get install mate-backgrounds)"
TMP=$(mktemp -d)
XPID=
cleanup() { [ -n "$XPID" ] && kill "$XPID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
vips thumbnail "$SRC" "$TMP/photo.jpg[Q=90,strip]" 4000 --height 3000 --crop centre
for n in $(seq 91 159); do
  [ -e /tmp/.X$n-lock ] || [ -e /tmp/.X11-unix/X$n ] && continue
  Xvfb :$n -screen 0 1920x1080x24 -nolisten tcp >/dev/null 2>&1 & XPID=$!
  for _ in $(seq 50); do [ -e /tmp/.X11-unix/X$n ] && break; sleep 0.1; done
  [ -e /tmp/.X11-unix/X$n ] && { export DISPLAY=:$n; break; }
  kill $XPID 2>/dev/null; XPID=
done
[ -n "$XPID" ] || fail "no free X display"
# The loop run inside each terminal: RUNS rounds over the protocols, one line "protocol ms" each.
cat > "$TMP/loop.sh" <<LOOP
for i in \$(seq $RUNS); do
  for p in \$PROTOCOLS; do
    printf '\\033[H\\033[2J'
    t0=\$(date +%s%N)
    "$BIN" render "$TMP/photo.jpg" --pixels \$p --colors truecolor
    t1=\$(date +%s%N)
    echo "\$p \$(( (t1 - t0) / 1000000 ))" >> "\$OUT"
  done
done
"$BIN" doctor > "\$OUT.doctor"
LOOP
PROTOCOLS="kitty halfblock" OUT="$TMP/kitty.txt" LIBGL_ALWAYS_SOFTWARE=1 timeout 300 \
  kitty --config NONE -o remember_window_size=no -o initial_window_width=1210 -o initial_window_height=820 -o window_padding_width=0 \
  sh "$TMP/loop.sh" >/dev/null 2>&1 || fail "kitty run failed"
PROTOCOLS="sixel halfblock" OUT="$TMP/xterm.txt" timeout 300 \
  xterm -ti vt340 -xrm 'XTerm*decTerminalID: vt340' -xrm 'XTerm*numColorRegisters: 256' -geometry 200x62 \
  -e sh "$TMP/loop.sh" >/dev/null 2>&1 || fail "xterm run failed"
echo "<!-- scripts/bench-terminal-pixels.sh, $(date -u +%Y-%m-%d), $("$BIN" --version), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) -->"
for t in kitty xterm; do
  echo "$t: $(grep -E '^(pixels|cell):' "$TMP/$t.txt.doctor" | tr '\n' ' ')"
  /usr/bin/python3 - "$TMP/$t.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    p, ms = line.split()
    rows.setdefault(p, []).append(int(ms))
for p, v in rows.items():
    v.sort()
    print("  %-9s median %4d ms  min %4d  max %4d  (%d runs)" % (p, statistics.median(v), v[0], v[-1], len(v)))
PY
done
