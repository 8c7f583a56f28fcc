package sim

import (
	"math"
	"slices"
	"time"
)

// loadCurve is a topic's production over time: every partition of the
// topic produces at its base rate times a factor that changes in steps
// (the topic's load: steps). Its integral M gives the records produced so
// far in units of the base rate, and its inverse the instant a record was
// produced, which is what a record's latency is measured from.
type loadCurve struct {
	at     []float64 // seconds; at[0] = 0
	factor []float64 // > 0
	cum    []float64 // M(at[i])
}

// newLoadCurve builds the curve of a topic from its steps (sorted by At).
func newLoadCurve(steps []LoadStep) *loadCurve {
	c := &loadCurve{at: []float64{0}, factor: []float64{1}, cum: []float64{0}}
	for _, s := range steps {
		t := sec(s.At)
		i := len(c.at) - 1
		if t == c.at[i] {
			c.factor[i] = s.Factor
			continue
		}
		c.cum = append(c.cum, c.cum[i]+c.factor[i]*(t-c.at[i]))
		c.at = append(c.at, t)
		c.factor = append(c.factor, s.Factor)
	}
	return c
}

// factorAt is the factor in force at t.
func (c *loadCurve) factorAt(t time.Duration) float64 {
	return c.factor[stepOf(c.at, sec(t))]
}

// m is the integral of the factor from 0 to t (seconds).
func (c *loadCurve) m(t float64) float64 {
	i := stepOf(c.at, t)
	return c.cum[i] + c.factor[i]*(t-c.at[i])
}

// inv is the instant at which the integral reached u: when the record at
// that position was produced.
func (c *loadCurve) inv(u float64) float64 {
	i := stepOf(c.cum, u)
	return c.at[i] + (u-c.cum[i])/c.factor[i]
}

// stepOf is the step whose start in xs (at or cum) is the last at or
// before x, the first for an x before every start.
//
// The curve of a topic without load steps has one step, which every
// lookup lands on, and the ledger looks on every change to one of the
// topic's partitions: that curve is answered without a search. The
// search is kept out of line so that stepOf is inlined where it is
// called, and the one-step answer costs a comparison there.
func stepOf(xs []float64, x float64) int {
	if len(xs) == 1 {
		return 0
	}
	return searchStep(xs, x)
}

// searchStep is stepOf for a curve of several steps.
//
//go:noinline
func searchStep(xs []float64, x float64) int {
	i, found := slices.BinarySearch(xs, x)
	if !found {
		i--
	}
	return max(i, 0)
}

// breaks returns the integrals strictly between u0 and u1 at which the
// factor changes, in order. The slice is the curve's own: it must not be
// changed, and its capacity ends with it, so that an append copies.
func (c *loadCurve) breaks(u0, u1 float64) []float64 {
	if len(c.cum) == 1 {
		if c.cum[0] > u0 && c.cum[0] < u1 {
			return c.cum[:1:1]
		}
		return nil
	}
	lo, _ := slices.BinarySearch(c.cum, u0)
	end := lo
	for end < len(c.cum) && c.cum[end] < u1 {
		end++
	}
	// cum never decreases, so the breaks above u0 end the range.
	for lo < end && c.cum[lo] <= u0 {
		lo++
	}
	return c.cum[lo:end:end]
}

// topicLoad is what the world knows of a topic's production: each
// partition's base rate and the topic's load over time.
type topicLoad struct {
	spec  TopicSpec
	rates []float64
	curve *loadCurve
}

// newTopicLoad resolves a topic's partition rates: its list, else its
// skew (drawn from the run's stream "skew/<topic>", so two protocols see
// the same partitions hot), then its hot partitions over either.
func newTopicLoad(t TopicSpec, s streams) *topicLoad {
	tl := &topicLoad{spec: t, curve: newLoadCurve(t.Load)}
	n := int(t.Partitions)
	rates := make([]float64, n)
	for i := range rates {
		rates[i] = t.Rate
		if i < len(t.Rates) {
			rates[i] = t.Rates[i]
		}
	}
	if t.Skew != nil && n > 0 {
		rng := s.Stream("skew/" + t.Name)
		weights := make([]float64, n)
		switch t.Skew.Dist {
		case "zipf":
			for rank, i := range rng.Perm(n) {
				weights[i] = math.Pow(float64(rank+1), -t.Skew.S)
			}
		case "lognormal":
			for i := range weights {
				weights[i] = math.Exp(t.Skew.Sigma * rng.NormFloat64())
			}
		}
		sum := 0.0
		for _, w := range weights {
			sum += w
		}
		for i, w := range weights {
			rates[i] = t.Rate * float64(n) * w / sum
		}
	}
	if t.Hot != nil {
		for _, p := range t.Hot.Partitions {
			if int(p) < n {
				rates[p] = t.Hot.Rate
			}
		}
	}
	tl.rates = rates
	return tl
}

// rate is partition p's base rate; partitions added later produce at the
// topic's rate.
func (tl *topicLoad) rate(p int32) float64 {
	if int(p) < len(tl.rates) {
		return tl.rates[p]
	}
	return tl.spec.Rate
}

// SetLoad applies the topic's load factor now to each of its partitions.
// Their owners share their capacity again, as the demands changed.
func (l *ledger) SetLoad(topic string) {
	t := l.now()
	l.catchUp(t)
	var changed, procs []int
	for _, idx := range l.topicIndex[topic] {
		p := l.part(idx)
		if p.base*p.curve.factorAt(t) != p.rate {
			changed = append(changed, idx)
			for _, o := range p.owners {
				procs = append(procs, o.proc)
			}
		}
	}
	slices.Sort(procs)
	procs = slices.Compact(procs)
	touched := slices.Clone(changed)
	for _, proc := range procs {
		touched = append(touched, l.procs[proc].owned...)
	}
	slices.Sort(touched)
	touched = slices.Compact(touched)
	for _, idx := range touched {
		l.advanceTo(idx, t)
	}
	for _, idx := range changed {
		p := l.part(idx)
		p.rate = p.base * p.curve.factorAt(t)
	}
	for _, proc := range procs {
		l.allocate(proc)
	}
	for _, idx := range touched {
		l.refresh(idx)
	}
}
