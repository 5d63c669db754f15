#!/bin/bash
# Regenerates the image fixtures in Tests/Fixtures/images/ (committed; about 100 KB in all) with
# ImageMagick 6 `convert` and the `vips` CLI (apt: imagemagick libvips-tools).
#   scripts/make-fixtures.sh
# The tests (Tests/ImagePipelineTests/FormatFixtureTests.swift, Tests/EndToEnd/test_render.py)
# assert on the colours below, so keep them in step.
#
# "quad": 64x48, top-left red, top-right lime (0,255,0), bottom-left blue, bottom-right white.
# Every orientation-N.jpg displays as quad once EXIF orientation N is applied (its stored pixels
# are quad under the inverse transform), so a test can check the rendered corners.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=Tests/Fixtures/images
mkdir -p "$OUT/bad"
for tool in convert vips python3; do
  command -v "$tool" >/dev/null || { echo "make-fixtures: $tool not found (apt-get install imagemagick libvips-tools)" >&2; exit 69; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# -strip: no timestamps or comments, so regenerating gives the same bytes.
IM="convert -define png:exclude-chunks=date,time"

$IM -size 32x24 xc:red -size 32x24 xc:lime +append \
    \( -size 32x24 xc:blue -size 32x24 xc:white +append \) -append -strip "PNG24:$TMP/quad.png"

# Colour spaces and bit depths.
$IM "$TMP/quad.png" -colorspace CMYK -quality 95 -strip "$OUT/cmyk.jpg"
$IM "$TMP/quad.png" -depth 16 -strip "PNG48:$OUT/rgb16.png"
# Grey + alpha (PNG colour type 4): left half grey 128 opaque, right half transparent.
$IM -size 32x48 xc:"gray(128)" -size 32x48 xc:none +append -colorspace Gray \
    -define png:color-type=4 -strip "$OUT/grey-alpha.png"
# Palette with tRNS (colour type 3): left half red, right half fully transparent.
$IM -size 32x48 xc:red -size 32x48 xc:none +append -strip "PNG8:$OUT/palette-trns.png"
# 1 bit per pixel (grey, colour type 0): left half black, right half white.
$IM -size 32x48 xc:black -size 32x48 xc:white +append -colorspace Gray \
    -define png:bit-depth=1 -define png:color-type=0 -strip "$OUT/bilevel.png"
# Adam7-interlaced PNG and progressive JPEG of quad.
$IM "$TMP/quad.png" -interlace PNG -strip "PNG24:$OUT/interlaced.png"
$IM "$TMP/quad.png" -interlace JPEG -quality 95 -strip "$OUT/progressive.jpg"

# AVIF (HEIF): 32x16 red, read through libvips's libheif module (loaded on first need).
$IM -size 32x16 xc:red -strip "PNG24:$TMP/red.png"
vips copy "$TMP/red.png" "$OUT/red-32x16.avif[Q=90]"

# BMP: recognised but unsupported (libvips reads it only through ImageMagick, which is outside
# Vitrine's loader allow-list): the tests expect "unsupported image format (BMP)".
$IM "$TMP/quad.png" "BMP3:$OUT/quad.bmp"

# EXIF orientations: stored = inverse transform of quad, tag = N.
inverse=( "" "" "-flop" "-rotate 180" "-flip" "-transpose" "-rotate 270" "-transverse" "-rotate 90" )
for n in 1 2 3 4 5 6 7 8; do
  # shellcheck disable=SC2086
  $IM "$TMP/quad.png" ${inverse[$n]} -quality 95 -strip "$OUT/orientation-$n.jpg"
  python3 scripts/set-exif-orientation.py "$OUT/orientation-$n.jpg" "$n"
done

# Animated GIF, 16x16: frames red, lime, blue (render shows the first).
$IM -delay 20 -size 16x16 xc:red xc:lime xc:blue -loop 0 -strip "$OUT/animated.gif"

# Animated GIF where disposal matters (Tests/ImagePipelineTests/AnimationDecodingTests.swift):
# 16x16 red (100 ms), a blue 8x8 square at the top left disposed by "restore to background"
# (200 ms), a lime 8x8 square at the bottom right (300 ms). Composited, frame 3 has no blue.
$IM -dispose None -delay 10 -size 16x16 xc:red \( -dispose Background -delay 20 -size 8x8 xc:blue -repage 16x16+0+0 \) \
  \( -dispose None -delay 30 -size 8x8 xc:lime -repage 16x16+8+8 \) -loop 0 -strip "$OUT/disposal.gif"
# Animated GIF for the full view's end-to-end test: 48x24, red, green, blue, 400 ms each.
$IM -delay 40 -size 48x24 xc:red xc:"rgb(0,200,0)" xc:blue -loop 0 -strip "$OUT/animated-rgb.gif"
# Animated WebP, 16x16, lossless: red (50 ms), lime (120 ms), blue (200 ms) (Pillow writes it:
# ImageMagick 6 here has no WebP animation encoder).
/usr/bin/python3 - "$OUT/animated.webp" <<'PY'
import sys
from PIL import Image
frames = [Image.new("RGBA", (16, 16), c) for c in [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255)]]
frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=[50, 120, 200], loop=0, lossless=True)
PY

# Odd height, tiny and extreme sizes.
$IM -size 10x7 xc:red -size 10x7 xc:blue +append \( -size 20x8 xc:lime \) -append -strip "PNG24:$OUT/odd-height-20x15.png"
$IM -size 1x1 xc:"rgb(255,128,0)" -strip "PNG24:$OUT/1x1.png"
$IM -size 2000x1 xc:red -size 2000x1 xc:blue +append -strip "PNG24:$OUT/wide-4000x1.png"
$IM -size 1x2000 xc:red -size 1x2000 xc:blue -append -strip "PNG24:$OUT/tall-1x4000.png"

# A decompression bomb: 12,000 x 12,000 pixels (144 MP) in a few KB, 1 bit per pixel.
# vips writes it line by line without holding it in memory.
vips black "$TMP/black.v" 12000 12000
vips pngsave "$TMP/black.v" "$OUT/huge-12000x12000.png" --bitdepth 1 --compression 9 --strip

# The 1/8 picture from the DCT coefficients (Tests/ImagePipelineTests/BlockVarianceTests.swift):
# zone plates as in scripts/make-quality-images.py (cos(pi r^2 / 2R), the frequency reaching
# 0.5 cycles per pixel at r = R), 256x192, quality 90, in RGB 4:4:4 and in greyscale; and a
# flat colour in 4:2:0, 100x60 (not a multiple of the 16-pixel MCU), where every block's
# deviation is 0. Baseline, deterministic (Pillow).
/usr/bin/python3 - "$OUT" <<'PY'
import sys
import numpy as np
from PIL import Image
out = sys.argv[1]
h, w, radius = 192, 256, 160.0
y, x = np.mgrid[0:h, 0:w].astype(np.float64)
v = 0.5 + 0.5 * np.cos(np.pi * ((x - w / 2 + 0.5) ** 2 + (y - h / 2 + 0.5) ** 2) / (2 * radius))
grey = np.clip(np.rint(v * 255), 0, 255).astype(np.uint8)
Image.fromarray(np.stack([grey] * 3, -1)).save(out + "/zone-plate.jpg", quality=90, subsampling=0)
Image.fromarray(grey, "L").save(out + "/zone-plate-grey.jpg", quality=90)
Image.new("RGB", (100, 60), (200, 60, 40)).save(out + "/flat-420.jpg", quality=90, subsampling=2)
PY

# Broken files, named for what they break.
$IM -seed 4 -size 64x48 plasma:red-blue -quality 90 -strip "$TMP/photo.jpg" 2>/dev/null || \
  $IM "$TMP/quad.png" -quality 90 -strip "$TMP/photo.jpg"
head -c $(( $(stat -c %s "$TMP/photo.jpg") * 6 / 10 )) "$TMP/photo.jpg" > "$OUT/bad/truncated.jpg"
printf '<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body>Not Found</body></html>\n' \
  > "$OUT/bad/html-as.png"
: > "$OUT/bad/zero-bytes.png"

du -cb "$OUT"/*.* "$OUT"/bad/* | tail -1
