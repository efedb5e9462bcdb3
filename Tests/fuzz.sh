#!/usr/bin/env bash
# Builds the libFuzzer harnesses (TICKERBOARD_FUZZ=1, a separate build directory) and runs each in
# turn for SECONDS (default 60 in all), starting from the seed corpus in Tests/Fuzz/corpus/NAME with
# the dictionary Tests/Fuzz/dict/NAME.dict. New inputs go to .build/fuzz-corpus/NAME (the seeds stay
# as committed); a crash leaves its input in .build/fuzz-artifacts/NAME and fails the script.
#   Tests/fuzz.sh [SECONDS] [NAME...]       e.g. Tests/fuzz.sh 600 fuzz-csv
#   FUZZ_RUNS=1000000 Tests/fuzz.sh 0 NAME  a fixed number of executions instead of a time
#                                          (FUZZ_MAX_TIME=S caps each harness at S seconds too)
#   FUZZ_SEED=N                            libFuzzer's random seed (default: a new one each run). With
#                                          FUZZ_RUNS it makes a run repeatable: the same inputs in the
#                                          same order, so a test run finds what it found last time.
set -euo pipefail
cd "$(dirname "$0")/.."

all=(fuzz-csv fuzz-scenes fuzz-config fuzz-timezone fuzz-records fuzz-format fuzz-gestures fuzz-providers fuzz-fetch fuzz-control fuzz-bridge)
total=${1:-60}
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
per=$(( total / ${#names[@]} ))
[ "$per" -ge 1 ] || per=1

# The build shares the machine: one build at a time, and the lock is not inherited by the fuzzers.
# run-all.sh (which builds without the lock itself) sets FUZZ_NO_LOCK=1 so that a caller holding the
# lock around all of run-all does not wait on itself.
lock=(flock -o /tmp/tickerboard-build.lock)
command -v flock >/dev/null && [ "${FUZZ_NO_LOCK:-0}" != 1 ] || lock=()
for name in "${names[@]}"; do
    TICKERBOARD_FUZZ=1 "${lock[@]}" swift build -c release --build-path .build/fuzz --product "$name" 2>&1 \
        | grep -v "Cannot export local symbol" || true
    [ -x ".build/fuzz/release/$name" ] || { echo "fuzz: $name did not build" >&2; exit 1; }
done

status=0
for name in "${names[@]}"; do
    corpus=.build/fuzz-corpus/$name
    artifacts=.build/fuzz-artifacts/$name
    mkdir -p "$corpus" "$artifacts"
    args=(-malloc_limit_mb=256 -rss_limit_mb=512 -timeout=5 -max_len=8192 -print_final_stats=1 "-artifact_prefix=$artifacts/")
    [ -f "Tests/Fuzz/dict/$name.dict" ] && args+=("-dict=Tests/Fuzz/dict/$name.dict")
    [ -n "${FUZZ_SEED:-}" ] && args+=("-seed=$FUZZ_SEED")
    if [ -n "${FUZZ_RUNS:-}" ]; then args+=("-runs=$FUZZ_RUNS" "-max_total_time=${FUZZ_MAX_TIME:-0}"); else args+=("-max_total_time=$per"); fi
    seeds=("Tests/Fuzz/corpus/$name")
    # The recorded provider responses stay in the shared data (never copied into the repository):
    # read-only seeds when present above the checkout.
    if [ "$name" = fuzz-providers ] || [ "$name" = fuzz-fetch ]; then
        dir=$(pwd)
        while [ "$dir" != / ]; do
            for c in "$dir/shared/data/providers" "$dir/../shared/data/providers"; do
                [ -d "$c" ] && for d in "$c"/*/; do seeds+=("$d"); done && dir=/ && break
            done
            [ "$dir" = / ] || dir=$(dirname "$dir")
        done
    fi
    echo "fuzz: $name (${FUZZ_RUNS:-$per s})"
    # The Swift runtime's backtracer would outlive a crash and hold the pipe; libFuzzer reports it.
    if ! SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:quarantine_size_mb=64 nice -n 10 ".build/fuzz/release/$name" "${args[@]}" \
        "$corpus" "${seeds[@]}" > "$artifacts/log.txt" 2>&1; then
        echo "fuzz: $name FAILED; input in $artifacts/, log:" >&2
        grep -E "invariant|Fatal error|ERROR|SUMMARY|Test unit written" "$artifacts/log.txt" | head -20 >&2
        status=1
    fi
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^Done" "$artifacts/log.txt" | sed "s/^/  /" || true
done
exit $status
