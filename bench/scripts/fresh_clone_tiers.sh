#!/bin/bash
# Each set-up and test target's time from a fresh clone, as a new user meets them:
#   bench/scripts/fresh_clone_tiers.sh DIR [BUSY]
# clones this repository into DIR (removed first), starts BUSY busy-loop processes (0: a
# quiet machine; 2: the "two busy loops" of a loaded 2-core machine), then times the
# install, `make serve` until / answers and its engines are ready, `make test-fast` and
# `make test`, each log in /tmp/<DIR's name>-*.log.
set -u
D=$1; BUSY=${2:-0}; NAME=$(basename "$D")
REPO=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$D"; git clone -q "$REPO" "$D"; cd "$D" || exit 1
pids=""
for _ in $(seq 1 "$BUSY"); do (while :; do :; done) & pids="$pids $!"; done
trap 'kill $pids 2>/dev/null' EXIT
now() { date +%s.%N; }
t0=$(now); make .venv/.installed > "/tmp/$NAME-install.log" 2>&1
t1=$(now); echo "install $(echo "$t1 - $t0" | bc) s"
(make serve PORT=8799 > "/tmp/$NAME-serve.log" 2>&1 &)
until curl -s -o /dev/null http://127.0.0.1:8799/; do sleep 0.5; done
t2=$(now); echo "make serve answers / $(echo "$t2 - $t1" | bc) s after the install"
until curl -s http://127.0.0.1:8799/api/health | grep -q '"engines_ready":true'; do sleep 0.5; done
t3=$(now); echo "its engines are ready $(echo "$t3 - $t1" | bc) s after the install"
grep "warm-up:" "/tmp/$NAME-serve.log"
pkill -f "banmen serve --host 127.0.0.1 --port 8799"; sleep 2
t4=$(now); make test-fast > "/tmp/$NAME-fast.log" 2>&1; echo "make test-fast: status $?"
t5=$(now); echo "make test-fast $(echo "$t5 - $t4" | bc) s"; tail -1 "/tmp/$NAME-fast.log"
t6=$(now); make test > "/tmp/$NAME-full.log" 2>&1; echo "make test: status $?"
t7=$(now); echo "make test $(echo "$t7 - $t6" | bc) s"; tail -1 "/tmp/$NAME-full.log"
