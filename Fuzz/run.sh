#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/README.md) with -sanitize=fuzzer,address and runs each for
# FUZZ_SECONDS seconds (default 30) from its seed corpus in Fuzz/corpus/<target>. Fails on any
# crash, leak (LeakSanitizer, asked for with -detect_leaks=1 rather than left to libFuzzer's
# default; Fuzz/lsan.supp lists toolchain-library frames only), or input
# that takes over 5 s. New inputs go to .build/fuzz/corpus/<target>, never into the repo;
# crashes to .build/fuzz/artifacts/ (add them to Fuzz/corpus/<target>/ with a test).
#
#   Fuzz/run.sh [TARGET ...]    targets: json plist path url gallery cache-entry sniff png jpeg
#   FUZZ_SECONDS=N (default 30) per target; FUZZ_SEED=N (default 1; 0: random)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFTC=${SWIFTC:-swiftc}
# The C shims are fuzzed with the toolchain's clang (its libFuzzer runtime is swiftc's).
CLANG=${CLANG:-$(dirname "$(command -v "$SWIFTC")")/clang}
SECONDS_EACH=${FUZZ_SECONDS:-30}
# A fixed seed by default, so a run in CI repeats the one developers ran (and a failure
# reproduces with the same command); FUZZ_SEED=0 lets libFuzzer pick one, for longer hunts.
SEED=${FUZZ_SEED:-1}
OUT=.build/fuzz
mkdir -p "$OUT/artifacts"
FLAGS=(-sanitize=fuzzer,address -parse-as-library -O -g)
# ld.gold's "Cannot export local symbol '__asan_...'" warnings are harmless (FACTS.md).
quiet() { grep -v "Cannot export local symbol" || true; }

gallery_targets="json plist path url gallery"
pipeline_targets="cache-entry sniff"
codec_targets="png jpeg"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($gallery_targets $pipeline_targets $codec_targets)

needs() { for t in "${targets[@]}"; do case " $1 " in *" $t "*) return 0;; esac; done; return 1; }
if needs "$gallery_targets"; then
  # Every Gallery source and the entry point as one module, so internal parsers are reachable.
  "$SWIFTC" "${FLAGS[@]}" -module-name GalleryFuzz $(find Sources/Gallery -name '*.swift' | sort) \
    Fuzz/GalleryFuzz.swift -o "$OUT/gallery-fuzz" 2>&1 | quiet
fi
if needs "$pipeline_targets"; then
  "$SWIFTC" "${FLAGS[@]}" -module-name PipelineFuzz Sources/ImagePipeline/Caching/DiskCacheEntry.swift \
    Sources/ImagePipeline/Decoding/ImageFormat.swift Fuzz/PipelineFuzz.swift -o "$OUT/pipeline-fuzz" 2>&1 | quiet
fi

if needs "$codec_targets"; then
  # CImageCodecs's C files as they are, against the same Debian libpng, libjpeg-turbo and zlib
  # the release binary links; LittleCMS headers only (colour.c opens it with dlopen).
  "$CLANG" -fsanitize=fuzzer,address -O1 -g -ISources/CImageCodecs/include -ISources/CImageCodecs \
    Sources/CImageCodecs/*.c Fuzz/codecs_fuzz.c -lpng16 -ljpeg -lz -ldl -lm -o "$OUT/codecs-fuzz" 2>&1 | quiet
fi

failed=0
for t in "${targets[@]}"; do
  case " $gallery_targets " in *" $t "*) bin=$OUT/gallery-fuzz;; *) bin=$OUT/pipeline-fuzz;; esac
  case " $codec_targets " in *" $t "*) bin=$OUT/codecs-fuzz;; esac
  [ -d "Fuzz/corpus/$t" ] || { echo "fuzz: no target $t" >&2; exit 2; }
  mkdir -p "$OUT/corpus/$t"
  start=$(date +%s)
  if VITRINE_FUZZ=$t LSAN_OPTIONS=suppressions=Fuzz/lsan.supp SWIFT_BACKTRACE=enable=no \
      "$bin" -seed="$SEED" -max_total_time="$SECONDS_EACH" -timeout=5 -detect_leaks=1 -rss_limit_mb=2048 -print_final_stats=0 \
      -artifact_prefix="$OUT/artifacts/$t-" "$OUT/corpus/$t" "Fuzz/corpus/$t" >"$OUT/$t.log" 2>&1; then
    echo "fuzz $t: ok, $(grep -o 'Done [0-9]* runs' "$OUT/$t.log" | tail -1) in $(( $(date +%s) - start )) s"
  else
    failed=1
    echo "fuzz $t: FAILED (log $OUT/$t.log):"
    grep -E "ERROR|SUMMARY|Test unit written" "$OUT/$t.log" | head -5
  fi
done
exit $failed
