package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// rollingPieces are the latency pieces of a group of members owning
// partitions/members partitions each, restarted rounds times 2s apart
// from 60s, each restart stopping every partition of the group for gap
// seconds (an eager rebalance) before it drains at twice its rate, as a
// run of the ledger leaves them: every partition's caught-up stretch up
// to the stop (ending where its owner last advanced it, so they differ
// by partition), then every partition's drain, alike for the partitions
// of one member and added side by side. It returns the pieces, the chart's steps, the
// episodes' bounds and the horizon.
func rollingPieces(members, partitions, rounds int, gap float64) (*pieceLog, []float64, []float64, float64) {
	rng := rand.New(rand.NewPCG(5, 6))
	const rate = 10.0
	horizon := 60 + 2*float64(rounds) + 120
	var l pieceLog
	caughtUp := make([]float64, partitions) // where each partition's caught-up stretch starts
	episodes := []float64{}
	for r := range rounds {
		stop := 60 + 2*float64(r)
		episodes = append(episodes, stop)
		drain := gap // at twice the rate, the backlog of gap seconds drains in gap seconds
		for p := range partitions {
			last := stop - 0.05*rng.Float64()
			l.add(latencyPiece{t0: caughtUp[p], t1: last, mass: rate * (last - caughtUp[p])})
		}
		for p := range partitions {
			jitter := 1e-3 * float64(p*members/partitions%7)
			t0, t1 := stop+gap+jitter, stop+gap+jitter+drain
			l.add(latencyPiece{t0: t0, t1: t1, w0: gap + jitter, w1: jitter, mass: 2 * rate * drain})
			caughtUp[p] = t1
		}
	}
	for p := range partitions {
		l.add(latencyPiece{t0: caughtUp[p], t1: horizon, mass: rate * (horizon - caughtUp[p])})
	}
	return &l, latencySeriesBounds(0, horizon), append(episodes, horizon), horizon
}

// restartPieces are the latency pieces of a group of members owning
// partitions/members partitions each, its members restarted one by one
// 2s apart from 60s, as a cooperative rebalance leaves them: at each
// restart only that member's partitions stop, for gap seconds, and drain
// at twice their rate, so every other partition's caught-up stretch runs
// on, most of them over hundreds of episodes. It returns the pieces, the
// chart's steps, the episodes' bounds and the horizon.
func restartPieces(members, partitions int, gap float64) (*pieceLog, []float64, []float64, float64) {
	rng := rand.New(rand.NewPCG(5, 6))
	const rate = 10.0
	horizon := 60 + 2*float64(members) + 120
	var l pieceLog
	caughtUp := make([]float64, partitions)
	episodes := []float64{}
	for r := range members {
		stop := 60 + 2*float64(r)
		episodes = append(episodes, stop)
		last := stop - 0.05*rng.Float64()
		for p := r; p < partitions; p += members {
			l.add(latencyPiece{t0: caughtUp[p], t1: last, mass: rate * (last - caughtUp[p])})
			l.add(latencyPiece{t0: stop + gap, t1: stop + 2*gap, w0: gap, w1: 0, mass: 2 * rate * gap})
			caughtUp[p] = stop + 2*gap
		}
	}
	for p := range partitions {
		l.add(latencyPiece{t0: caughtUp[p], t1: horizon, mass: rate * (horizon - caughtUp[p])})
	}
	return &l, latencySeriesBounds(0, horizon), append(episodes, horizon), horizon
}

// randomLog are n pieces with nothing in common (no two alike), over
// [0, horizon], for the passes' worst case.
func randomLog(n int, horizon float64) *pieceLog {
	rng := rand.New(rand.NewPCG(7, 8))
	var l pieceLog
	for range n {
		t0 := rng.Float64() * (horizon - 5)
		q := latencyPiece{t0: t0, t1: t0 + rng.Float64()*5, w0: rng.Float64() * 3, w1: rng.Float64() * 3, mass: 1 + rng.Float64()*100}
		if rng.IntN(2) == 0 {
			q.w0, q.w1 = 0, 0
		}
		l.add(q)
	}
	return &l
}

// BenchmarkLatencyPass measures the end-of-run latency computation alone,
// as the result asks for it: the run's percentiles over the measurement
// window, the chart's steps and the episodes.
func BenchmarkLatencyPass(b *testing.B) {
	type shape struct {
		name     string
		log      *pieceLog
		steps    []float64
		episodes []float64
		horizon  float64
	}
	var shapes []shape
	for _, s := range []struct{ members, partitions, rounds int }{{100, 1000, 100}, {300, 3000, 300}} {
		l, steps, episodes, h := rollingPieces(s.members, s.partitions, s.rounds, 1.2)
		shapes = append(shapes, shape{fmt.Sprintf("rolling%dx%d", s.members, s.partitions), l, steps, episodes, h})
	}
	{
		l, steps, episodes, h := restartPieces(1000, 100000, 1)
		shapes = append(shapes, shape{"restart1000x100000", l, steps, episodes, h})
	}
	const horizon = 1000.0
	steps := latencySeriesBounds(0, horizon)
	var episodes []float64
	for i := 0; i < len(steps); i += 10 {
		episodes = append(episodes, steps[i])
	}
	shapes = append(shapes, shape{"random1M", randomLog(1<<20, horizon), steps, episodes, horizon})
	for _, s := range shapes {
		pieces := len(piecesOf(s.log.read()))
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				latencyWithin(s.log.read(), 0, s.horizon, s.steps, s.episodes)
			}
			b.ReportMetric(float64(pieces), "pieces")
			b.ReportMetric(float64(s.log.n), "runs")
		})
	}
}
