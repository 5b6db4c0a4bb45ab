#!/usr/bin/env bash
# Fuzzes MagickIO's public API (ImageSource(data:), properties(at:), thumbnail(maxPixelSize:)) with
# libFuzzer and AddressSanitizer/LeakSanitizer, for SECONDS seconds (default 60).
#
#   bash Fuzz/run.sh [SECONDS] [libFuzzer flags...]
#   bash Fuzz/run.sh 300 -fork=2 -ignore_crashes=1     # keep going past a crash, on 2 cores
#   Fuzz/.build/debug/MagickIOFuzz Fuzz/work/artifacts/crash-...   # replay one input
#
# Needs only the Swift toolchain (its libclang_rt.fuzzer and llvm-symbolizer) and
# libmagickwand-dev. Works in Fuzz/work (gitignored; FUZZ_WORK overrides): seeds/ is made afresh
# from the test fixtures, the sample images, Fuzz/seeds (tiny HEIC, AVIF, BMP, WebP made with
# ImageMagick), the small versions of scripts/hostile-fixtures.py's families, and Fuzz/regressions (inputs that once failed: they keep failing the run until the
# bug is fixed); corpus/ keeps what libFuzzer found
# across runs; artifacts/ keeps every crash, leak, timeout, OOM and slow unit. Exits non-zero when
# this run added a crash, leak, timeout or OOM artifact (or the build or libFuzzer failed).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
seconds="${1:-60}"
if [ $# -gt 0 ]; then shift; fi
work="${FUZZ_WORK:-$here/work}"
mkdir -p "$work/corpus" "$work/artifacts"

echo "== building MagickIOFuzz (-sanitize=fuzzer,address; log in $work/build.log)"
build=(swift build -c debug --package-path "$here" --scratch-path "$here/.build" -Xswiftc -sanitize=fuzzer,address)
built=false
for attempt in 1 2 3; do
    if "${build[@]}" >"$work/build.log" 2>&1; then built=true; break; fi
    # Only a source edited mid-build (in a working copy someone is editing) is worth another try.
    grep -q "was modified during the build" "$work/build.log" || break
done
if ! $built; then
    # ld.gold warns once per ASan symbol it cannot export: noise, left out of the excerpt.
    grep -v "Cannot export local symbol" "$work/build.log" | tail -40 >&2
    echo "fuzz: build failed" >&2
    exit 2
fi
binary="$("${build[@]}" --show-bin-path)/MagickIOFuzz"

rm -rf "$work/seeds"
mkdir -p "$work/seeds"
for file in "$root"/Tests/MagickIOTests/Fixtures/* "$root"/Examples/thumbnail/Samples/* "$here"/seeds/* "$here"/regressions/*; do
    case "$file" in *.sh) continue ;; esac
    # The phone-sized HEICs (12 and 24 MP of flat colour in 30 KB) are there for the tests' sizes:
    # one decode takes 20-30 s in this unoptimised ASan build, over libFuzzer's timeout, and
    # their mutations would spend the minute on libde265. Small HEICs and AVIFs stay.
    # So are the HEIF files whose bitstream codes 4096x4096 under a 96x64 declaration: the own path
    # resamples that picture, about 30 s a decode in this build.
    # anim-300.gif (300 frames of 500x500, for the memory test) is left out for the same reason:
    # its frames are composited and resampled one by one, several seconds in this build.
    case "$(basename "$file")" in phone-*.heic | *-coded-past-ispe.* | anim-300.gif) continue ;; esac
    [ -f "$file" ] && cp "$file" "$work/seeds/"
done
# The hostile families of issue 18 (metadata that inflates, frames and pages by the thousand, scans,
# layouts), in versions under 64 KB: each must end in a typed error or an image within the limits.
python3 "$root/scripts/hostile-fixtures.py" --small "$work/seeds" >/dev/null

toolchain_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
if [ -x "$toolchain_bin/llvm-symbolizer" ]; then
    export ASAN_SYMBOLIZER_PATH="$toolchain_bin/llvm-symbolizer"
fi
# Leaks are findings; lsan.supp names ImageMagick's own one-time allocations (each with its reason).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=1}"
# Swift's own crash backtracer runs inside the crashing process and trips ASan; libFuzzer and ASan
# print the stack instead.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

before="$(ls "$work/artifacts")"
echo "== fuzzing for ${seconds}s (corpus $work/corpus, seeds $work/seeds, artifacts $work/artifacts)"
set +e
"$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=20 -max_len=65536 \
    -report_slow_units=5 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
    "$@" "$work/corpus" "$work/seeds"
status=$?
set -e

new="$(comm -13 <(printf '%s\n' "$before" | sort) <(ls "$work/artifacts" | sort) || true)"
if [ -n "$new" ]; then
    echo "== new artifacts in $work/artifacts (replay: $binary <file>):"
    printf '  %s\n' $new
fi
if printf '%s\n' "$new" | grep -qE '^(crash|leak|timeout|oom)-'; then
    echo "fuzz: findings (see above)" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "fuzz: libFuzzer exited with $status" >&2
    exit "$status"
fi
echo "fuzz: no findings in ${seconds}s"
