#!/usr/bin/env bash
# Compares two release binaries of compat on the generated families, end to end from SQLite:
# first that they print the same bytes, then how long each takes.
#
#   benches/compare.sh OLD NEW [RUNS]
#
# OLD and NEW are paths to `compat` binaries (copy `target/release/compat` aside before a
# change). RUNS (default 5) alternating runs of each command per binary give the median and
# the range of wall seconds: on a shared 2-core machine one run varies by 10-30%, so only
# alternating runs compare fairly. With MODE=instructions each binary runs once under
# `valgrind --tool=callgrind` instead and the instructions executed are printed: exact and
# repeatable (within a fraction of a percent across runs, the threads' shares of the work
# aside), so a change of 1-2% shows where wall times cannot (about 1 minute per run at 1,000
# products; keep to the smaller families).
#
# Environment:
#   FAMILIES  which families and sizes, as KIND:PRODUCTS (default
#             "hard:1000 hard:5000 hardcap:1000 hardcap:5000 easy:5000"); KIND is one of
#             easy, cap, hard, hardcap, inst, instcap, capstale, hardcapstale (the last
#             two start invalid: `generate --stale 10`).
#   COMMANDS  which commands (default "upgrades plan-all"; also "validate", "order").
#   DATA      where the generated data is kept between runs (default /tmp/compat-bench):
#             each family is generated (seed 1, 40 releases) and imported once, by NEW.
#   MODE      "time" (default) or "instructions".
set -euo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,24p' "$0"
    exit 2
fi
OLD=$(realpath "$1")
NEW=$(realpath "$2")
RUNS=${3:-5}
FAMILIES=${FAMILIES:-"hard:1000 hard:5000 hardcap:1000 hardcap:5000 easy:5000"}
COMMANDS=${COMMANDS:-"upgrades plan-all"}
DATA=${DATA:-/tmp/compat-bench}
MODE=${MODE:-time}
mkdir -p "$DATA"

flags() {
    case $1 in
        easy) echo "" ;;
        cap) echo "--capabilities" ;;
        hard) echo "--hard" ;;
        hardcap) echo "--hard --capabilities" ;;
        inst) echo "--instances" ;;
        instcap) echo "--instances --capabilities" ;;
        capstale) echo "--capabilities --stale 10" ;;
        hardcapstale) echo "--hard --capabilities --stale 10" ;;
        *) echo "unknown family kind: $1" >&2; exit 2 ;;
    esac
}

args() { # command, directory
    case $1 in
        upgrades) echo "upgrades $2/env.yml --catalog $2.db -f json" ;;
        plan-all) echo "plan $2/env.yml --catalog $2.db --all -f json" ;;
        validate) echo "validate $2/env.yml --catalog $2.db -f json" ;;
        order) echo "order $2/env.yml --catalog $2.db -f json" ;;
        *) echo "unknown command: $1" >&2; exit 2 ;;
    esac
}

# runs `compat ARGS`, output to $out; prints wall seconds (exit 1 is findings or an
# infeasible plan, 4 an answer not proven: only a usage or input error, or a crash, stops here)
timed() { # binary, out, args...
    local bin=$1 out=$2
    shift 2
    local start end rc=0
    start=$(date +%s.%N)
    "$bin" "$@" > "$out" 2> /dev/null || rc=$?
    end=$(date +%s.%N)
    case $rc in
        0 | 1 | 4) ;;
        *) echo "$bin $* exited $rc" >&2; exit 1 ;;
    esac
    echo "$end - $start" | bc
}

instructions() { # binary, args...
    local bin=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 > /dev/null |
        sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

median() { sort -g | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.3f [%.3f-%.3f]", m, a[1], a[NR]}'; }

printf '%-20s %-9s %-6s %-26s %-26s %s\n' family command same old new change
for family in $FAMILIES; do
    kind=${family%%:*}
    products=${family##*:}
    dir=$DATA/$kind-$products
    if [ ! -f "$dir.db" ]; then
        # shellcheck disable=SC2046
        "$NEW" generate $(flags "$kind") --products "$products" --releases 40 --seed 1 \
            --out "$dir" > /dev/null
        "$NEW" catalog import "$dir/catalog" --db "$dir.db.part" > /dev/null
        mv "$dir.db.part" "$dir.db"
    fi
    for command in $COMMANDS; do
        read -ra argv <<< "$(args "$command" "$dir")"
        timed "$OLD" "$DATA/old.out" "${argv[@]}" > /dev/null
        timed "$NEW" "$DATA/new.out" "${argv[@]}" > /dev/null
        same=no
        cmp -s "$DATA/old.out" "$DATA/new.out" && same=yes
        if [ "$MODE" = instructions ]; then
            old=$(instructions "$OLD" "${argv[@]}")
            new=$(instructions "$NEW" "${argv[@]}")
            change=$(echo "scale=2; 100 * ($new - $old) / $old" | bc)
            printf '%-20s %-9s %-6s %-26s %-26s %s%%\n' "$family" "$command" "$same" "$old" "$new" "$change"
            continue
        fi
        : > "$DATA/old.times"
        : > "$DATA/new.times"
        for _ in $(seq "$RUNS"); do
            timed "$OLD" /dev/null "${argv[@]}" >> "$DATA/old.times"
            timed "$NEW" /dev/null "${argv[@]}" >> "$DATA/new.times"
        done
        old=$(median < "$DATA/old.times")
        new=$(median < "$DATA/new.times")
        change=$(echo "scale=1; 100 * (${new%% *} - ${old%% *}) / ${old%% *}" | bc)
        printf '%-20s %-9s %-6s %-26s %-26s %s%%\n' "$family" "$command" "$same" "$old" "$new" "$change"
    done
done
