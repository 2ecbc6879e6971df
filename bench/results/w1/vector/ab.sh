#!/bin/bash
# Old (before the vector API's layers) and new runtime jars in turn on the W1 data: one view of the largest article
# at a time, then uncached neural views by popularity at 300 and 600/s (CPU per view from /proc; by thread on the second
# 300/s point), then the floor. As run on 2026-11-28: W1 fed into DWELL_DATA by `./dwell feed w1`, the two builds' jars
# as /tmp/old.jar (cfeb4b5) and /tmp/new.jar (8876628), query files from bench/queries.py in Q (20,000 neural views,
# --params cache=false; /status.html in floor.txt). Output: ab.txt.
cd "$(git rev-parse --show-toplevel)"
export DWELL_DATA=${DWELL_DATA:-/work/w1/data} DWELL_HEAP=10g DWELL_JAVA_OPTS=-Ddwell.embeddingCacheSize=400000
JAR=runtime/target/dwell-runtime-1.0.0.jar
LG="java -cp bench/target/dwell-bench-1.0.0.jar ai.dwell.bench.LoadGenerator"
Q=${Q:-/work/w1/q}
echo "/search/?article=tweets-16671&ranking=neural&hits=10&timeout=5s&cache=false" > $Q/largest.txt
summary() { .venv/bin/python -c 'import json,sys; r=json.loads(sys.stdin.read().strip().splitlines()[-1]); print("ok=%d refused=%d p50=%.2f p90=%.2f p99=%.2f" % (r["ok"], r.get("refused",0), r["p50"], r.get("p90", float("nan")), r["p99"]))'; }
cpu() { awk '{print $14+$15}' /proc/$(cat $DWELL_DATA/runtime.pid)/stat; }
point() { # label file rate secs
  local c0 c1 out
  c0=$(cpu); out=$($LG -s $4 -q $2 -i $3 --rate $3 --slo 10,50 localhost 8080 | summary); c1=$(cpu)
  echo "$1 rate=$3 $out cpu_ms_per=$(echo "($c1-$c0)*10/($3*$4)" | bc -l | cut -c1-5)"
}
single() { # label
  local c0 c1 out n
  c0=$(cpu); out=$($LG -n 1 -s 10 -q $Q/largest.txt localhost 8080 | tail -1); c1=$(cpu)
  n=$(echo "$out" | .venv/bin/python -c 'import json,sys; print(json.loads(sys.stdin.read())["ok"])')
  echo "$1 single largest $(echo "$out" | summary) cpu_ms_per=$(echo "($c1-$c0)*10/$n" | bc -l | cut -c1-5)"
}
for round in ${ROUNDS:-1 2}; do
  for v in ${VERSIONS:-old new}; do
    cp /tmp/$v.jar $JAR; touch $JAR
    t0=$(date +%s.%N)
    ./dwell start >/dev/null 2>&1 || { echo "start failed"; exit 1; }
    for i in $(seq 240); do
      code=$(curl -s -o /dev/null -w "%{http_code}" "localhost:8080/search/?article=tweets-16671&ranking=neural&hits=10&cache=false")
      [ "$code" = 200 ] && break; sleep 0.5
    done
    echo "$v r$round: first 200 after $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5) s (code $code)"
    $LG -s 60 -q $Q/neural-nocache.txt -i 300 --rate 300 localhost 8080 >/dev/null
    single "$v r$round"
    point "$v r$round neural" $Q/neural-nocache.txt 300 30
    P=$(cat $DWELL_DATA/runtime.pid); python3 bench/results/w1/vector/threads.py snap $P > /tmp/w1t0
    point "$v r$round neural" $Q/neural-nocache.txt 300 30
    python3 bench/results/w1/vector/threads.py snap $P > /tmp/w1t1; python3 bench/results/w1/vector/threads.py diff /tmp/w1t0 /tmp/w1t1 9000 | sed "s/^/  $v r$round threads: /"
    point "$v r$round neural" $Q/neural-nocache.txt 600 30
    point "$v r$round floor" $Q/floor.txt 300 30
    ./dwell stop >/dev/null 2>&1
  done
done
cp /tmp/new.jar $JAR; touch $JAR
