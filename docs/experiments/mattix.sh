#!/usr/bin/env bash
# The runs behind docs/experiments/mattix.md. From the repository root, after `make serve`
# or `make test` has created .venv:  bash docs/experiments/mattix.sh
# Results go to docs/experiments/mattix.sqlite3 (not in git) and, as reports, tables and
# plots, to docs/experiments/mattix/<run>/. About an hour on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
banmen=".venv/bin/banmen"
db="docs/experiments/mattix.sqlite3"
out="docs/experiments/mattix"

# 1. The write-up's headline: "depth 99, 1 s per move" against depth 1, 500 games, 6x6.
$banmen arena mattix --size 6 --seed 1 --games 500 --db "$db" --name deep-vs-d1 \
  -p deep=alphabeta:depth=99,time=1 -p d1=alphabeta:depth=1

# 1b. The same with a search as deep as the write-up's engine reached in a second (12 plies).
$banmen arena mattix --size 6 --seed 1 --games 500 --db "$db" --name d12-vs-d1 \
  -p d12=alphabeta:depth=12 -p d1=alphabeta:depth=1

# 2. Depth 1..10 against depth 1, 1,000 games each (d1 against itself is the control).
players=()
for d in 1 2 3 4 5 6 7 8 9 10; do players+=(-p "d$d=alphabeta:depth=$d"); done
$banmen arena mattix --size 6 --seed 1 --games 1000 --db "$db" --name depths \
  -p base=alphabeta:depth=1 "${players[@]}" --gauntlet base

# 3. Perfect play against each depth, and against itself (the first player's advantage).
$banmen arena mattix --size 6 --seed 1 --games 1000 --db "$db" --name perfect \
  -p perfect=perfect "${players[@]}" -p perfect2=perfect --gauntlet perfect

for run in deep-vs-d1 d12-vs-d1 depths perfect; do
  $banmen arena report "$run" --db "$db" --out "$out/$run" > "$out/$run.txt"
done
