package sim

import (
	"math"
	"time"
)

// lagPath follows the total lag over the measurement window exactly, to
// find when it was back to its level at the window start for good. The
// total lag is piecewise linear: its slope changes only when the ledger
// changes a partition's slope or a draining partition reaches zero, and
// the ledger reports the lag at each such instant (record). Between two
// reported points the lag is linear, so the last instant above a threshold
// lies on the segment after the last point above it.
//
// Only the points that can still be that last point are kept: a stack of
// suffix maxima (values strictly decreasing towards the top), each with the
// point that followed it.
type lagPath struct {
	started bool
	start   time.Duration
	base    float64
	// floor is a lower bound of the final threshold (base plus one record,
	// or 1% of the peak so far): points at or below it are never needed.
	floor float64
	stack []lagPoint
	// topIsLast is whether the top of the stack is the last point recorded.
	topIsLast bool
}

type lagPoint struct {
	at time.Duration
	v  float64
	// next is the point that followed this one, if any.
	next    time.Duration
	nextV   float64
	hasNext bool
}

// begin fixes the baseline: the total lag at the window start, before the
// first disturbance can have moved it (lag is continuous in time).
func (p *lagPath) begin(at time.Duration, v float64) {
	p.started, p.start, p.base, p.floor = true, at, v, v+1
	p.record(at, v)
}

// record adds the total lag v at instant at (non-decreasing).
func (p *lagPath) record(at time.Duration, v float64) {
	if n := len(p.stack); n > 0 && p.topIsLast {
		top := &p.stack[n-1]
		top.next, top.nextV, top.hasNext = at, v, true
	}
	for n := len(p.stack); n > 0 && p.stack[n-1].v <= v; n-- {
		p.stack = p.stack[:n-1]
	}
	p.topIsLast = v > p.floor
	if p.topIsLast {
		p.stack = append(p.stack, lagPoint{at: at, v: v})
	}
}

// raiseFloor drops the points a higher threshold makes irrelevant.
func (p *lagPath) raiseFloor(floor float64) {
	if floor <= p.floor {
		return
	}
	p.floor = floor
	n := len(p.stack)
	for n > 0 && p.stack[n-1].v <= floor {
		n--
	}
	if n < len(p.stack) {
		p.stack, p.topIsLast = p.stack[:n], false
	}
}

// recovery returns how long after the window start the lag was last above
// threshold (0 if never); a lag above it at the last point recorded (the
// horizon) did not recover, and the whole window is returned.
func (p *lagPath) recovery(threshold float64) time.Duration {
	for i := len(p.stack) - 1; i >= 0; i-- {
		e := p.stack[i]
		if e.v <= threshold {
			continue
		}
		if !e.hasNext {
			return e.at - p.start
		}
		// The segment from e to its successor crosses the threshold
		// going down: e.v > threshold >= e.nextV.
		frac := (e.v - threshold) / (e.v - e.nextV)
		return e.at + time.Duration(math.Round(frac*float64(e.next-e.at))) - p.start
	}
	return 0
}
