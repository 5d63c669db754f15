#!/bin/sh
# Serve real Debian images over loopback for a manual browse with Vitrine.
#
#   scripts/serve-real-photos.sh [PORT]      (default 8765; 0 = any free port)
#
# Builds a temporary directory with symlinks to
#   /usr/share/backgrounds/mate/**/*.{jpg,png}    (package mate-backgrounds)
#   /usr/share/flags/countries/16x11/*.png        (package famfamfam-flag-png)
# and a gallery.json (a plain array of {"title", "url"} with absolute
# http://127.0.0.1:PORT/ URLs), then runs Tests/Fixtures/galleryserver.py on
# 127.0.0.1 until Ctrl-C (or MAX_SECONDS, default 3600). Extra server options
# can be passed in SERVER_OPTS, e.g. SERVER_OPTS="--delay 0.5 --log /tmp/req.log".
set -eu

PORT=${1:-8765}
MAX_SECONDS=${MAX_SECONDS:-3600}
HERE=$(cd "$(dirname "$0")" && pwd)
SERVER="$HERE/../Tests/Fixtures/galleryserver.py"
MATE=/usr/share/backgrounds/mate
FLAGS=/usr/share/flags/countries/16x11

for d in "$MATE" "$FLAGS"; do
    [ -d "$d" ] || { echo "missing $d (apt-get install mate-backgrounds famfamfam-flag-png)" >&2; exit 66; }
done

ROOT=$(mktemp -d "${TMPDIR:-/tmp}/vitrine-real.XXXXXX")
SERVER_PID=
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    rm -rf "$ROOT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Symlinks keep the temp dir tiny; the server follows links inside its root.
find "$MATE" \( -type f -o -type l \) \( -name '*.jpg' -o -name '*.png' \) | sort | while read -r f; do
    rel="mate/${f#"$MATE"/}"
    mkdir -p "$ROOT/$(dirname "$rel")"
    ln -s "$f" "$ROOT/$rel"
done
mkdir -p "$ROOT/flags"
for f in "$FLAGS"/*.png; do ln -s "$f" "$ROOT/flags/$(basename "$f")"; done

# shellcheck disable=SC2086  # SERVER_OPTS is split on purpose
python3 "$SERVER" --port "$PORT" --root "$ROOT" --max-seconds "$MAX_SECONDS" ${SERVER_OPTS:-} \
    >"$ROOT/.server.out" &
SERVER_PID=$!

# Wait for the "PORT <n>" line (the real port when PORT is 0).
i=0
until grep -q '^PORT ' "$ROOT/.server.out" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 100 ] || ! kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "galleryserver.py did not start" >&2
        exit 69
    fi
    sleep 0.1
done
PORT=$(sed -n 's/^PORT //p' "$ROOT/.server.out" | head -n 1)

# The server reads files on each request, so the gallery can be written now.
python3 - "$ROOT" "$PORT" <<'EOF'
import json, os, sys
root, port = sys.argv[1], sys.argv[2]
base = "http://127.0.0.1:%s/" % port
items = []
for dirpath, dirs, files in sorted(os.walk(root)):
    dirs.sort()
    for name in sorted(files):
        rel = os.path.relpath(os.path.join(dirpath, name), root)
        if not name.endswith((".jpg", ".png")):
            continue
        stem = os.path.splitext(name)[0]
        if rel.startswith("mate/"):
            title = "%s (%s)" % (stem.replace("_", " ").replace("-", " "), rel.split("/")[1])
        else:
            title = "Flag %s" % stem.upper()
        items.append({"title": title, "url": base + rel})
items.sort(key=lambda it: (not it["url"].startswith(base + "mate/"), it["url"]))
with open(os.path.join(root, "gallery.json"), "w", encoding="utf-8") as f:
    json.dump(items, f, indent=1, ensure_ascii=False)
print("%d images" % len(items))
EOF

echo "Serving $ROOT on 127.0.0.1:$PORT (Ctrl-C to stop). In another terminal run:"
echo
echo "    vitrine http://127.0.0.1:$PORT/gallery.json"
echo
wait "$SERVER_PID"
