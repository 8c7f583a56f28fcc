#!/usr/bin/env bash
# CI for the fidelity suite (FIDELITY.md, "CI"): the module's own checks,
# then five short-timing scenarios under the three protocols on a real
# Kafka broker with Java consumers, failing when the simulator's counts
# differ from the real ones. realrun starts the broker and every consumer
# in process groups of their own and kills them on every way out (the
# kernel kills them too if realrun dies); the timeout bounds the step.
set -euo pipefail
cd "$(dirname "$0")"

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
timeout --kill-after=30s 14m "$tmp/realrun" \
  scenarios/scale-out.yaml scenarios/leave.yaml scenarios/crash.yaml \
  scenarios/gc-pause.yaml scenarios/rolling-static.yaml \
  --client java --timings short --reps 1 --parallel --gate ci --out "$tmp/out"
