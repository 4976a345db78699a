#!/bin/sh
# Runs fuzz targets one after the other, each for a bounded time: `run.sh SECONDS TARGET...` from the repository
# root, after `make fuzz-build`. New inputs libFuzzer finds go to .build-fuzz/work/<target>/corpus (never into
# git; the committed seeds in Tools/Fuzz/Corpus/<target> are read, not written). A crash, leak, timeout or trap
# fails the run and prints the reproducer's path and the command that replays it.
set -u
binary=.build-fuzz/debug/malibu-fuzz
seconds=$1
shift
failed=0
for target in "$@"; do
  work=.build-fuzz/work/$target
  mkdir -p "$work/corpus" "$work/artifacts" "$work/tmp"
  # SWIFT_BACKTRACE: the Swift runtime's own crash handler trips AddressSanitizer when it reads the stack.
  # TMPDIR: the files a target writes (multipart's file parts) stay in the scratch folder.
  TMPDIR="$PWD/$work/tmp" SWIFT_BACKTRACE=enable=no MALIBU_FUZZ_TARGET=$target \
    "$binary" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "Tools/Fuzz/Corpus/$target" \
    >"$work/log" 2>&1
  status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
  if [ "$status" -eq 0 ]; then
    echo "fuzz $target: ${executions:-?} executions in ${seconds} s, no failure"
  else
    failed=1
    echo "fuzz $target: FAILED (exit status $status) after ${executions:-?} executions; log: $work/log"
    grep -E "ERROR:|Fatal error|SUMMARY|panic|Assertion|Precondition" "$work/log" | head -20
    reproducer=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$work/log" | tail -1)
    if [ -n "$reproducer" ]; then
      echo "reproducer: $reproducer"
      echo "replay: MALIBU_FUZZ_TARGET=$target $binary $reproducer"
    fi
  fi
done
exit $failed
