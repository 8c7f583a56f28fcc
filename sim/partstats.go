package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The ledger's per-partition measures of what operators feel: the latency
// of the records that leave (latency.go), the partition's peak lag and
// the age of its oldest unprocessed record, and stuck partitions. All are
// computed when the partition is advanced, from its lag line, never per
// record or per sample.

// departures records the latency of the records partition p's
// lag-driving owner processed from p.since to t, when the lag went from
// p.sinceLag to newLag. The lag is linear over the stretch until it
// reaches zero, after which the owner keeps up: records leave as they are
// produced, at zero latency.
func (l *ledger) departures(p *partLedger, newLag float64, t time.Duration) {
	if p.base <= 0 {
		return
	}
	s0, s1 := sec(p.since), sec(t)
	caughtUp := s1 // where the lag reaches zero, if it does
	switch {
	case p.lagT > p.since:
		// The line was pinned at zero when the lag ran out (totalLag).
		caughtUp = sec(p.lagT)
	case newLag == 0 && p.slope < 0:
		caughtUp = min(max(sec(p.lagT)+p.lag/(-p.slope), s0), s1)
	}
	if p.sinceLag > 0 || newLag > 0 {
		lagEnd := newLag
		if caughtUp < s1 {
			lagEnd = 0
		}
		u0 := p.curve.m(s0) - p.sinceLag/p.base
		u1 := p.curve.m(caughtUp) - lagEnd/p.base
		l.backlog(p, s0, caughtUp, u0, u1)
	} else {
		caughtUp = s0
	}
	if caughtUp < s1 {
		l.caughtUp(p, caughtUp, s1)
	}
}

// backlog adds the pieces of records leaving over [s0, s1] while the
// processed position (in units of the base rate) moves from u0 to u1;
// a piece ends wherever the records leaving were produced under another
// load factor.
func (l *ledger) backlog(p *partLedger, s0, s1, u0, u1 float64) {
	if u1 <= u0 || s1 <= s0 {
		return
	}
	l.closeZero(p)
	at := func(u float64) float64 { return s0 + (u-u0)/(u1-u0)*(s1-s0) }
	prev := u0
	breaks := p.curve.breaks(u0, u1)
	for k := range len(breaks) + 1 {
		u := pieceEnd(breaks, k, u1)
		ta, tb := at(prev), at(u)
		l.addPiece(p, latencyPiece{t0: ta, t1: tb, w0: ta - p.curve.inv(prev), w1: tb - p.curve.inv(u), mass: p.base * (u - prev)})
		prev = u
	}
}

// pieceEnd is where the k-th piece of a stretch from u0 to u1 ends: at
// the k-th of the load's breaks between them, and the last one at u1.
func pieceEnd(breaks []float64, k int, u1 float64) float64 {
	if k < len(breaks) {
		return breaks[k]
	}
	return u1
}

// caughtUp extends the partition's stretch of zero-latency departures
// over [s0, s1], or starts a new one.
func (l *ledger) caughtUp(p *partLedger, s0, s1 float64) {
	if p.zeroOpen && (p.zeroTo != s0 || p.zeroRate != p.rate) {
		l.closeZero(p)
	}
	if !p.zeroOpen {
		p.zeroOpen, p.zeroFrom, p.zeroRate = true, s0, p.rate
	}
	p.zeroTo = s1
}

// closeZero ends the partition's open stretch of zero-latency departures.
func (l *ledger) closeZero(p *partLedger) {
	if !p.zeroOpen {
		return
	}
	p.zeroOpen = false
	l.addPiece(p, latencyPiece{t0: p.zeroFrom, t1: p.zeroTo, mass: p.zeroRate * (p.zeroTo - p.zeroFrom)})
}

// addPiece keeps the part of a piece inside the window.
func (l *ledger) addPiece(p *partLedger, q latencyPiece) {
	ws := l.windowSec
	if q.t1 < ws || q.mass <= 0 {
		return
	}
	if q.t0 < ws {
		var ok bool
		if q, ok = q.clip(ws, q.t1); !ok {
			return
		}
	}
	p.maxAge = max(p.maxAge, q.w0, q.w1)
	l.hist = nil
	// A change that does not touch the partition's rates (a commit, a
	// sibling's assignment) splits a stretch in two collinear pieces:
	// they are kept as one, so that pieces grow with the partition's
	// rate changes, not with everything that touches its owner.
	if last := l.pieces.at(p.lastPiece, p.lastAt); last != nil && last.continuedBy(q) {
		e := *last
		e.t1, e.w1, e.mass = q.t1, q.w1, last.mass+q.mass
		l.pieces.set(p.lastPiece, p.lastAt, e)
		return
	}
	p.lastPiece, p.lastAt = l.pieces.add(q)
}

// censor adds the records still waiting at the horizon t with their age
// then, the least latency they will have.
func (l *ledger) censor(p *partLedger, t time.Duration) {
	lag := l.lagAt(p, t)
	if lag <= 0 || p.base <= 0 || t < l.windowStart {
		return
	}
	st := sec(t)
	u1 := p.curve.m(st)
	u0 := u1 - lag/p.base
	prev := u0
	breaks := p.curve.breaks(u0, u1)
	for k := range len(breaks) + 1 {
		u := pieceEnd(breaks, k, u1)
		l.addPiece(p, latencyPiece{t0: st, t1: st, w0: st - p.curve.inv(prev), w1: st - p.curve.inv(u), mass: p.base * (u - prev)})
		prev = u
	}
}

// lagSince is the partition's lag at x, between p.since and now, before
// it is advanced: the lag line may have been pinned at zero since p.since
// when the lag ran out, and before that it ran from p.sinceLag.
func (l *ledger) lagSince(p *partLedger, x time.Duration) float64 {
	if p.lagT > p.since && x < p.lagT {
		return p.sinceLag * float64(p.lagT-x) / float64(p.lagT-p.since)
	}
	return l.lagAt(p, x)
}

// observePartition keeps the partition's peak lag and the largest age of
// its oldest unprocessed record up to date at t. The lag is convex between
// changes, so its peak is at an end of the stretch; the age grows while
// nobody processes the partition and otherwise is the latency of the
// records leaving, which the pieces carry.
func (l *ledger) observePartition(p *partLedger, newLag float64, t time.Duration) {
	if t < l.windowStart {
		return
	}
	if p.since < l.windowStart {
		p.peakLag = max(p.peakLag, l.lagSince(p, l.windowStart))
	}
	p.peakLag = max(p.peakLag, newLag)
	if newLag > 0 && p.base > 0 {
		st := l.secs(t)
		p.maxAge = max(p.maxAge, st-p.curve.inv(p.curve.m(st)-newLag/p.base))
	}
}

// refreshStuck opens or closes the partition's stretch without progress
// under a live, current owner while it has lag: the data-plane failure
// no protocol invariant sees. A partition that produces nothing and has
// no backlog is idle, not stuck.
func (l *ledger) refreshStuck(p *partLedger, owner int, t time.Duration) {
	stuck := false
	if owner < 0 && (p.rate > 0 || l.lagAt(p, t) > 0) {
		for i := range p.owners {
			stuck = stuck || l.procs[p.owners[i].proc].current()
		}
	}
	if stuck == p.stuck {
		return
	}
	if !stuck {
		l.closeStuck(p, t)
		return
	}
	// Every revocation stops a partition under a current owner, so the
	// owners are kept in the partition's own list, reused from one
	// stretch to the next, and named only when a stretch is reported.
	p.stuckOwners = p.stuckOwners[:0]
	for _, o := range p.owners {
		if l.procs[o.proc].current() {
			p.stuckOwners = append(p.stuckOwners, o.proc)
		}
	}
	p.stuck, p.stuckFrom = true, t
}

// closeStuck ends a stuck stretch at t, reporting it if it lasted longer
// than stuck_after and its report falls in the window.
func (l *ledger) closeStuck(p *partLedger, t time.Duration) {
	p.stuck = false
	at := p.stuckFrom + l.stuckAfter
	if t-p.stuckFrom <= l.stuckAfter || at < l.windowStart {
		return
	}
	owners := make([]string, len(p.stuckOwners))
	for i, proc := range p.stuckOwners {
		owners[i] = l.procs[proc].name
	}
	l.findings = append(l.findings, Finding{Kind: "stuck_partition", At: sec(at), Members: owners, Partitions: []string{p.name},
		Detail: fmt.Sprintf("%s owned %s as a current member but processed none of it for %s (stuck_after %s) while its lag reached %.0f records",
			strings.Join(owners, ", "), p.name, t-p.stuckFrom, l.stuckAfter, l.lagAt(p, t))})
}

// utilisation is the share of its capacity proc used over the window.
func (l *ledger) utilisation(proc int) float64 {
	pr := l.procs[proc]
	span := sec(l.now() - l.windowStart)
	if pr.rate <= 0 || span <= 0 {
		return 0
	}
	return pr.processed / (pr.rate * span)
}

// worstPartitions is how many partitions a result lists by lag in time.
const worstPartitions = 10

// partitionReport lists the partitions with the largest lag in time, worst
// first, and names the hot ones: those producing at least twice their
// topic's median rate.
func (l *ledger) partitionReport() (worst []PartitionMetrics, hot []string) {
	median := map[string]float64{}
	for topic, idxs := range l.topicIndex {
		rates := make([]float64, 0, len(idxs))
		for _, idx := range idxs {
			rates = append(rates, l.part(idx).base)
		}
		slices.Sort(rates)
		median[topic] = rates[len(rates)/2]
	}
	all := make([]PartitionMetrics, 0, len(l.parts))
	hot = []string{}
	for i := range l.parts {
		p := l.part(i)
		pm := PartitionMetrics{Partition: p.name, Rate: p.base, Moves: p.moves, PeakLagRecords: p.peakLag, MaxLagSeconds: p.maxAge,
			Hot: p.base > 0 && p.base >= 2*median[l.tps[p.idx].Topic]}
		if pm.Hot {
			hot = append(hot, p.name)
		}
		all = append(all, pm)
	}
	slices.SortStableFunc(all, func(a, b PartitionMetrics) int {
		return cmp.Or(cmp.Compare(b.MaxLagSeconds, a.MaxLagSeconds), cmp.Compare(b.PeakLagRecords, a.PeakLagRecords))
	})
	return all[:min(len(all), worstPartitions)], hot
}
