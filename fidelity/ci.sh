#!/usr/bin/env bash
# CI for the fidelity suite (FIDELITY.md, "CI"): the module's own checks,
# then five short-timing scenarios under the three protocols on a real
# Kafka broker with Java consumers, failing when the simulator's counts,
# maximum partition gap or convergence leave the real band (known
# disagreements, listed in fidelity/compare.go, are reported only), then
# scale-out with librdkafka consumers, failing on counts. realrun starts the broker and every consumer
# in process groups of their own and kills them on every way out (the
# kernel kills them too if realrun dies); the timeout bounds the step.
set -euo pipefail
cd "$(dirname "$0")"

# The librdkafka member links the static librdkafka that
# confluent-kafka-go ships, so the module needs cgo and a C compiler.
if ! command -v gcc >/dev/null; then
  apt-get update -q >/dev/null && apt-get install -y -q gcc libc6-dev >/dev/null
fi
export CGO_ENABLED=1

echo "== fidelity: gofmt, vet, test"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
go test ./...

echo "== fidelity: Kafka broker and Java consumers, short timings"
if ! command -v mvn >/dev/null || ! command -v java >/dev/null; then
  apt-get update -q >/dev/null && apt-get install -y -q maven openjdk-17-jdk-headless >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/realrun" ./cmd/realrun
# One scenario at a time. Whether a rebalance in progress absorbs a
# member's rejoin depends on the heartbeat phase, so a real group can
# rebalance once more or less than on another run (FIDELITY.md, "CI"): a
# scenario whose counts leave the band of one repetition is run again
# with three, and fails only if the simulator is outside the band of
# those three. A wrong model fails every time; a phase draw does not.
deadline=$((SECONDS + 14 * 60))
failed=()
for sc in scale-out leave crash gc-pause rolling-static; do
  left=$((deadline - SECONDS))
  if [ "$left" -le 60 ]; then
    echo "fidelity: out of time before $sc"; failed+=("$sc (not run)"); continue
  fi
  for reps in 1 3; do
    if timeout --kill-after=30s "$left" "$tmp/realrun" "scenarios/$sc.yaml" \
      --client java --timings short --reps "$reps" --parallel --gate ci --out "$tmp/out-$sc-$reps"; then
      continue 2
    fi
    echo "fidelity: $sc left the band of $reps repetition(s)"
    left=$((deadline - SECONDS))
    [ "$left" -gt 60 ] || break
  done
  failed+=("$sc")
done
# librdkafka (cgo, its static build) on scale-out under the three
# protocols: its counts must equal the simulator's too. Its timings are
# not gated: the simulator models the Java client.
left=$((deadline - SECONDS))
if [ "$left" -gt 60 ]; then
  timeout --kill-after=30s "$left" "$tmp/realrun" scenarios/scale-out.yaml \
    --client librdkafka --timings short --reps 1 --parallel \
    --gate rebalances,moved_partitions,revocations --out "$tmp/out-librdkafka" || failed+=("scale-out (librdkafka)")
else
  echo "fidelity: out of time before librdkafka"; failed+=("scale-out librdkafka (not run)")
fi
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fidelity: FAILED: ${failed[*]}"; exit 1
fi
echo "fidelity: every scenario within the real band"
