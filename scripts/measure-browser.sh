#!/usr/bin/env bash
# Measures the browser's first paint and idle CPU on the demo gallery, in a private tmux.
# Usage: scripts/measure-browser.sh [BINARY]   (default .build/release/vitrine)
set -euo pipefail
BIN=${1:-.build/release/vitrine}
for i in 1 2 3 4 5; do
  T="tmux -L vitrine-measure-$$-$i"
  start=$(date +%s%N)
  $T -f /dev/null new-session -d -x 120 -y 40 -e TERM=tmux-256color "$BIN; sleep 30"
  first=""
  for _ in $(seq 1 2000); do
    screen=$($T capture-pane -p 2>/dev/null || true)
    now=$(date +%s%N)
    if [ -z "$first" ] && grep -q "gallery.plist" <<<"$screen"; then first=$(((now - start) / 1000000)); fi
    if grep -q "loading 0" <<<"$screen"; then break; fi
    sleep 0.005
  done
  echo "run $i: status line at ${first} ms, visible thumbnails at $(((now - start) / 1000000)) ms"
  if [ "$i" = 1 ]; then
    pid=$(pgrep -n -f "^$BIN\$" || true)
    if [ -n "$pid" ]; then
      a=$(awk '{print $14 + $15}' "/proc/$pid/stat"); sleep 5; b=$(awk '{print $14 + $15}' "/proc/$pid/stat")
      echo "idle CPU over 5 s: $((b - a)) clock ticks; $(grep VmRSS "/proc/$pid/status")"
    fi
  fi
  $T send-keys q; sleep 0.2; $T kill-server 2>/dev/null || true
done
