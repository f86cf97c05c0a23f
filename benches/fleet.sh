#!/usr/bin/env bash
# The fleet figures of BENCHMARKS.md: many environments against one generated catalog (5,000
# products x 40 releases, seed 1; PRODUCTS and RELEASES change it), checked in one run
# (`--envs DIR`) and in one run each.
#
#   benches/fleet.sh COUNT ENTITIES [CATALOG...]
#
# COUNT environments, each a window of ENTITIES entities of the generated environment starting
# at a different place (ENTITIES=0: the whole environment, about 5,150 entities); CATALOG is
# `dir`, `sqlite` or a postgres:// URL (default: dir sqlite). Uses target/release/compat (or
# $COMPAT). Prints wall-clock seconds; the machine is shared, so take the best of a few runs.
set -euo pipefail
count=${1:-100}
size=${2:-0}
shift $(( $# < 2 ? $# : 2 ))
catalogs=("$@")
[ ${#catalogs[@]} -gt 0 ] || catalogs=(dir sqlite)
bin=$(realpath "${COMPAT:-target/release/compat}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin" generate --out "$work/gen" --products "${PRODUCTS:-5000}" --releases "${RELEASES:-40}" --seed 1 >/dev/null
mkdir "$work/envs"
# Split the generated environment into its entity entries, then write the windows.
awk -v count="$count" -v size="$size" -v out="$work/envs" '
  /^  - / { n++ }
  n > 0 { item[n] = item[n] $0 "\n" }
  END {
    if (size <= 0 || size > n) size = n
    stride = (n > size) ? int((n - size) / count) + 1 : 0
    for (e = 0; e < count; e++) {
      file = sprintf("%s/env-%05d.yml", out, e)
      printf "environment: env-%05d\nentities:\n", e > file
      start = (n > size) ? (e * stride) % (n - size + 1) : 0
      for (i = start + 1; i <= start + size; i++) printf "%s", item[i] > file
      close(file)
    }
  }' "$work/gen/env.yml"

seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
each() { for f in "$work"/envs/*.yml; do "$bin" validate "$f" --catalog "$1" >/dev/null 2>&1 || true; done; }

for catalog in "${catalogs[@]}"; do
  case "$catalog" in
    dir) source="$work/gen/catalog" ;;
    sqlite) source="$work/c.db"; "$bin" catalog import "$work/gen/catalog" --db "$source" >/dev/null ;;
    postgres://* | postgresql://*) source="$catalog"; "$bin" catalog import "$work/gen/catalog" --db "$source" >/dev/null ;;
    *) echo "unknown catalog $catalog" >&2; exit 2 ;;
  esac
  name=${catalog%%://*}
  echo "$name: $count environments of ${size/#0/all} entities: one run $(seconds "$bin" validate --envs "$work/envs" --catalog "$source") s"
  echo "$name: $count environments of ${size/#0/all} entities: one run each $(seconds each "$source") s"
done
