package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// streams derives independent random streams from a seed and a stream name
// ("net/c3", "poll/c7"). Two runs with the same seed draw the same numbers
// from a stream of the same name whatever else they do, which gives the
// protocols common random numbers: a disturbance drawn for one protocol is
// drawn identically for the other.
type streams struct {
	seed uint64
}

// newStreams returns the stream family of seed.
func newStreams(seed uint64) streams { return streams{seed: seed} }

// Stream returns a fresh generator for name. Calling it twice with the same
// name gives two generators producing the same sequence.
func (s streams) Stream(name string) *rand.Rand {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], s.seed)
	h := sha256.New()
	h.Write(buf[:])
	h.Write([]byte(name))
	sum := h.Sum(nil)
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[0:8]), binary.LittleEndian.Uint64(sum[8:16])))
}

// sampler draws durations from a Distribution.
type sampler struct {
	dist Distribution
	rng  *rand.Rand
	logn distuv.LogNormal
}

// z99 is the 99th percentile of the standard normal distribution.
const z99 = 2.3263478740408408

// newSampler returns a sampler of d drawing from rng.
func newSampler(d Distribution, rng *rand.Rand) *sampler {
	s := &sampler{dist: d, rng: rng}
	if d.Kind == DistLogNormal {
		// A lognormal with median m has mu = ln m; its p99 is
		// exp(mu + z99*sigma), so sigma follows from the p99.
		mu := math.Log(float64(d.Median))
		sigma := 0.0
		if d.P99 > d.Median {
			sigma = (math.Log(float64(d.P99)) - mu) / z99
		}
		s.logn = distuv.LogNormal{Mu: mu, Sigma: sigma, Src: rng}
	}
	return s
}

// Fixed reports whether every draw is the same duration, and which; such a
// sampler draws nothing from its stream.
func (s *sampler) Fixed() (time.Duration, bool) {
	switch s.dist.Kind {
	case DistUniform:
		return s.dist.Min, s.dist.Max <= s.dist.Min
	case DistLogNormal:
		return s.dist.Median, s.logn.Sigma == 0
	default:
		return s.dist.Value, true
	}
}

// Sample draws one duration (never negative).
func (s *sampler) Sample() time.Duration {
	switch s.dist.Kind {
	case DistUniform:
		span := s.dist.Max - s.dist.Min
		if span <= 0 {
			return s.dist.Min
		}
		return s.dist.Min + time.Duration(s.rng.Int64N(int64(span)+1))
	case DistLogNormal:
		if s.logn.Sigma == 0 {
			return s.dist.Median
		}
		return time.Duration(s.logn.Rand())
	default:
		return s.dist.Value
	}
}
