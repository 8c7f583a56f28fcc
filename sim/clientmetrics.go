package sim

import "time"

func (w *world) clientNote(p *process, n *Note) {
	m := &p.metrics
	now := w.k.Now()
	switch n.Kind {
	case NoteRebalanceStart:
		if !m.inRebalance {
			m.inRebalance, m.rebalanceStart = true, now
		}
	case NoteRebalanceEnd:
		if n.Failed {
			m.failed++
		} else if m.inRebalance {
			m.inRebalance = false
			m.latencies = append(m.latencies, float64(now-m.rebalanceStart)/float64(time.Millisecond))
			m.lastRebalanceEnd, m.hasRebalanced = now, true
		}
	case NoteJoinFailure:
		if n.Failed && p.pod != nil {
			w.podFatal(p)
		}
		if !p.joinFailed {
			p.joinFailed = true
			w.findings = append(w.findings, Finding{Kind: "join_failure", At: sec(now), Members: []string{p.name}, Detail: n.Detail})
		}
	}
	if w.traceOn() {
		w.emit(traceRecord{Event: string(n.Kind), Member: p.name, Detail: n.Detail})
	}
}

// clientMetrics accumulates a member's KIP-429 client metrics across its
// incarnations.
type clientMetrics struct {
	rebalanceStart   time.Duration
	inRebalance      bool
	latencies        []float64 // ms
	failed           int
	lastRebalanceEnd time.Duration
	hasRebalanced    bool
	callbacks        [3][]float64 // ms, by CallbackKind
}
