#!/usr/bin/env bash
# make sanitize: the X11Pasteboard tests under AddressSanitizer (LeakSanitizer included) and
# ThreadSanitizer, each built in its own scratch path (.build-asan, .build-tsan) so that neither
# rebuilds the other nor the plain .build.
#
# The run fails on a failing test and on any sanitizer report, whichever process made it: every
# sanitized process (the test runner, and the xpb and pasteboard-example products the tests start,
# found next to the runner) writes its reports to a file under <scratch>/sanitizer-reports instead
# of stderr, and any such file fails the run, even when a test never looks at its child's exit
# status or stderr. The runner stops at its first report (halt_on_error=1).
#
#   scripts/sanitize.sh [address|thread]...     both when none is named
#   SANITIZE_FILTER=REGEX                         another `swift test --filter` (default: X11PasteboardTests)
#   SANITIZE_SKIP=REGEX                           `swift test --skip`: tests left out
#   ASAN_OPTIONS / LSAN_OPTIONS / TSAN_OPTIONS    appended to ours, so they win (halt_on_error=0 shows every report)
#
# Suppressions: scripts/sanitizers/*.supp, for reports inside libraries we do not own only.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
support=$root/scripts/sanitizers
filter=${SANITIZE_FILTER:-X11PasteboardTests}
sanitizers=("$@")
[ ${#sanitizers[@]} -eq 0 ] && sanitizers=(address thread)

failures=()
for sanitizer in "${sanitizers[@]}"; do
    case $sanitizer in
    address) scratch=.build-asan ;;
    thread) scratch=.build-tsan ;;
    *) echo "sanitize.sh: unknown sanitizer '$sanitizer' (address or thread)" >&2; exit 2 ;;
    esac
    reports=$root/$scratch/sanitizer-reports
    rm -rf "$reports" && mkdir -p "$reports" || exit 1
    linker=()
    if [ "$sanitizer" = thread ]; then
        # Lets TSan see Synchronization.Mutex's contended path (see the file's comment).
        # The toolchain's clang, beside swift (it ships the sanitizer runtimes too).
        cc=$(dirname "$(command -v swift)")/clang
        [ -x "$cc" ] || cc=clang
        "$cc" -c -O2 -fPIC "$support/swift-mutex-tsan.c" -o "$root/$scratch/swift-mutex-tsan.o" || exit 1
        linker=(-Xlinker "$root/$scratch/swift-mutex-tsan.o")
    fi

    echo "== swift test --sanitize=$sanitizer --filter $filter (reports: $scratch/sanitizer-reports)"
    started=$SECONDS
    # The package has no XCTest tests: only swift-testing runs. gold's warnings about the
    # sanitizer runtime's local symbols (hundreds of lines per link) are dropped.
    ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:log_path=$reports/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    LSAN_OPTIONS="suppressions=$support/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
    TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:log_path=$reports/tsan:suppressions=$support/tsan.supp:print_suppressions=0${TSAN_OPTIONS:+:$TSAN_OPTIONS}" \
        swift test --sanitize="$sanitizer" --scratch-path "$scratch" --disable-xctest --filter "$filter" \
        ${SANITIZE_SKIP:+--skip "$SANITIZE_SKIP"} "${linker[@]}" 2>&1 |
        grep --line-buffered -v "ld.gold: warning: Cannot export local symbol"
    status=${PIPESTATUS[0]}

    found=$(find "$reports" -type f | sort)
    if [ -n "$found" ]; then
        echo "== $sanitizer: sanitizer reports from $(echo "$found" | wc -l) process(es):"
        for report in $found; do
            echo "-- $report"
            cat "$report"
        done
    fi
    echo "== $sanitizer: swift test exited $status, $(echo -n "$found" | grep -c .) report file(s), $((SECONDS - started)) s"
    if [ "$status" -ne 0 ] || [ -n "$found" ]; then failures+=("$sanitizer"); fi
done

if [ ${#failures[@]} -ne 0 ]; then
    echo "sanitize: FAILED under ${failures[*]}" >&2
    exit 1
fi
echo "sanitize: no sanitizer reports, all tests passed (${sanitizers[*]})"
