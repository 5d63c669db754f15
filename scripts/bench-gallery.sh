#!/usr/bin/env bash
# Measures opening big JSON galleries: `vitrine list` (read + map + print) and the browser's
# first screen (time until the status line shows, and its memory), on generated galleries of
# 100,000 and 1,000,000 items.
# Usage: scripts/bench-gallery.sh [BINARY] [RUNS]   (default .build/release/vitrine, 5 runs)
#        GALLERIES="g100k" scripts/bench-gallery.sh ...  measures only the 100,000-item gallery;
#        GALLERIES="g2 g100k" adds a 2-item gallery as the baseline (process and tmux start-up).
# Needs python3, tmux and GNU time (/usr/bin/time). Touches no network.
set -euo pipefail
BIN=$(realpath "${1:-.build/release/vitrine}")
RUNS=${2:-5}
GALLERIES=${GALLERIES:-g100k g1m}
DIR=$(mktemp -d /tmp/vitrine-bench-gallery.XXXXXX)
trap 'rm -rf "$DIR"' EXIT

python3 - "$DIR" $GALLERIES <<'EOF'
import sys
out = sys.argv[1]
for n, name in ((2, "g2.json"), (100_000, "g100k.json"), (1_000_000, "g1m.json")):
    if name[:-5] not in sys.argv[2:]:
        continue
    with open("%s/%s" % (out, name), "w") as f:
        f.write("[")
        f.write(",\n".join('{"title": "Item %d", "url": "pictures/%d.jpg"}' % (i, i) for i in range(n)))
        f.write("]\n")
EOF

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for g in $GALLERIES; do
  size=$(stat -c %s "$DIR/$g.json")
  : >"$DIR/list.txt"
  for _ in $(seq 1 "$RUNS"); do
    /usr/bin/time -f "%e %U %M" -o "$DIR/t.txt" "$BIN" list "$DIR/$g.json" >/dev/null
    cat "$DIR/t.txt" >>"$DIR/list.txt"
  done
  wall=$(awk '{print $1 * 1000}' "$DIR/list.txt" | median)
  user=$(awk '{print $2 * 1000}' "$DIR/list.txt" | median)
  rss=$(awk '{print int($3 / 1024)}' "$DIR/list.txt" | median)
  echo "list $g ($((size / 1024 / 1024)) MB): median wall ${wall} ms, user ${user} ms, max RSS ${rss} MB ($RUNS runs)"
done

for g in $GALLERIES; do
  : >"$DIR/tui.txt"
  for i in $(seq 1 "$RUNS"); do
    T="tmux -L vitrine-bench-gallery-$$-$i"
    start=$(date +%s%N)
    $T -f /dev/null new-session -d -x 120 -y 40 -e TERM=tmux-256color -e XDG_CACHE_HOME="$DIR/cache" \
      "$BIN --no-disk-cache $DIR/$g.json; sleep 30"
    first=""
    for _ in $(seq 1 6000); do
      screen=$($T capture-pane -p 2>/dev/null || true)
      if grep -qE '[0-9]+/[0-9]+.*\? help' <<<"$screen"; then first=$((($(date +%s%N) - start) / 1000000)); break; fi
      sleep 0.005
    done
    pid=$(pgrep -n -f "^$BIN --no-disk-cache $DIR/$g.json\$" || true)
    mem="?"
    cpu="?"
    if [ -n "$pid" ]; then
      # CPU time (user + system) of the process when the status line was seen: steadier than
      # wall time on a loaded machine (clock ticks, 10 ms).
      cpu=$(awk -v hz="$(getconf CLK_TCK)" '{print int(($14 + $15) * 1000 / hz)}' "/proc/$pid/stat")
      sleep 1   # let the first thumbnails settle
      mem=$(awk '/VmRSS|VmHWM/ {printf "%s %d MB  ", $1, $2 / 1024}' "/proc/$pid/status")
    fi
    echo "${first:-timeout} $cpu $mem" >>"$DIR/tui.txt"
    $T send-keys q; sleep 0.2; $T kill-server 2>/dev/null || true
  done
  echo "browser $g: status line at $(awk '{print $1}' "$DIR/tui.txt" | median) ms median" \
    "(runs: $(awk '{print $1}' "$DIR/tui.txt" | tr '\n' ' ')), CPU by then $(awk '{print $2}' "$DIR/tui.txt" | median) ms" \
    "median; last run: $(tail -1 "$DIR/tui.txt" | cut -d' ' -f3-)"
done
