#!/bin/sh
# Restart and stop times of `flowmark serve` under its supervisor: `npm run build && sh bench/supervisor.sh`
# (from the repository). Prints how long a SIGKILLed worker takes to be replaced and listening, and
# how long SIGTERM takes to stop everything.
set -e
D=$(mktemp -d); OUT=$D/out
FLOWMARK_DATA=$D node bin/flowmark.js serve --port 0 --log-level warn > $OUT 2>&1 &
SUP=$!
while ! grep -q "worker 2 (pid" $OUT || ! grep -q "worker 1 (pid" $OUT; do sleep 0.05; done
PID=$(sed -n 's/^flowmark: worker 1 (pid \([0-9]*\)) listening$/\1/p' $OUT | head -1)
T0=$(date +%s%N); kill -KILL $PID
while [ "$(sed -n 's/^flowmark: worker 1 (pid \([0-9]*\)) listening$/\1/p' $OUT | tail -1)" = "$PID" ]; do sleep 0.02; done
T1=$(date +%s%N); echo "worker replaced and listening: $(( (T1-T0)/1000000 )) ms after SIGKILL"
T0=$(date +%s%N); kill -TERM $SUP; wait $SUP; RC=$?; T1=$(date +%s%N)
echo "SIGTERM to exit: $(( (T1-T0)/1000000 )) ms, exit $RC"; rm -rf "$D"
