package swarm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim/sim"
)

// Since names a member of a finding and when the state the finding
// caught it in began, in seconds of virtual time.
type Since struct {
	Member string
	At     float64
}

// Conversion is an online conversion of the group between the
// protocols: At seconds, To "consumer" (an upgrade,
// GroupMetadataManager.convertToConsumerGroup) or "classic" (a
// downgrade, convertToClassicGroup).
type Conversion struct {
	At float64
	To string
}

// needsObservation reports whether f can only be classified with what
// the members' requests and the group's conversions were at its finding,
// which a run's result does not hold: a double ownership under a classic
// protocol, in a group that migrates, that no hazard explains without.
func needsObservation(s *Spec, f Failure) bool {
	return f.Class == Safety && classic(f) && f.Key == "double_ownership" && migrates(s) && f.Hazard == ""
}

// observe runs protocol p of f again with a trace (the run is
// deterministic, so it is the same run) and returns what the trace
// shows of the group's requests and conversions.
func observe(f *File, models sim.Models, p string) (*observation, error) {
	o := newObservation()
	if _, err := sim.Run(f.Scenario, models, sim.RunOptions{Protocol: p, Trace: o}); err != nil {
		return nil, err
	}
	if o.err != nil {
		return nil, fmt.Errorf("reading the trace of %s: %w", p, o.err)
	}
	return o, nil
}

// joinWait is a JoinGroup a member sent, from Sent until End (its
// answer, its timeout or the end of the process; +Inf if none), and
// whether a network partition dropped it or its answer.
type joinWait struct {
	Sent, End float64
	Lost      bool
}

// syncAnswer is a successful SyncGroupResponse the coordinator sent a
// member at Sent: the member's new classic assignment.
type syncAnswer struct {
	Sent       float64
	Partitions []string
}

// revocation is a member's onPartitionsRevoked ending at End.
type revocation struct {
	End        float64
	Partitions []string
}

// observation is what a run's trace shows, member by member, of the
// classic requests in flight and the revocations, and of the group's
// conversions. It is an io.Writer of the trace, reading it line by line
// as the run writes it, so that the trace is never held whole.
type observation struct {
	buf         []byte
	err         error
	joins       map[string][]joinWait
	syncs       map[string][]syncAnswer
	revocations map[string][]revocation
	// starts are when each member's processes started: a new one
	// starts with no assignment and revokes nothing of an older one's.
	starts map[string][]float64
	// heard are when each member received anything from the
	// coordinator: what it knows of the group dates from the last one.
	heard       map[string][]float64
	conversions []Conversion
}

func newObservation() *observation {
	return &observation{joins: map[string][]joinWait{}, syncs: map[string][]syncAnswer{}, revocations: map[string][]revocation{}, starts: map[string][]float64{}, heard: map[string][]float64{}}
}

func (o *observation) Write(p []byte) (int, error) {
	o.buf = append(o.buf, p...)
	for {
		i := bytes.IndexByte(o.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		var r sim.TraceRecord
		if err := json.Unmarshal(o.buf[:i], &r); err != nil && o.err == nil {
			o.err = err
		}
		o.record(r)
		o.buf = o.buf[i+1:]
	}
}

// record folds one trace record into the observation.
func (o *observation) record(r sim.TraceRecord) {
	from, to := "", ""
	if r.From != nil {
		from = r.From.Process
	}
	if r.To != nil {
		to = r.To.Process
	}
	assignment, synced := syncAssignment(r.Body)
	if r.Event == "recv" && from == "coordinator" {
		o.heard[to] = append(o.heard[to], r.T)
	}
	switch {
	case r.Event == "send" && r.Msg == "JoinGroup":
		o.endJoin(from, r.T)
		o.joins[from] = append(o.joins[from], joinWait{Sent: r.T, End: math.Inf(1)})
	case r.Event == "drop" && r.Msg == "JoinGroup":
		o.loseJoin(from)
	case r.Event == "drop" && r.Msg == "JoinGroupResponse":
		o.loseJoin(to)
	case r.Event == "recv" && r.Msg == "JoinGroupResponse":
		o.endJoin(to, r.T)
	case r.Event == "rebalance_end" && strings.Contains(r.Detail, "JoinGroup timed out"), r.Event == "process_stop":
		o.endJoin(r.Member, r.T)
	case r.Event == "process_start":
		o.endJoin(r.Member, r.T)
		o.starts[r.Member] = append(o.starts[r.Member], r.T)
	case r.Event == "send" && r.Msg == "SyncGroupResponse" && synced:
		o.syncs[to] = append(o.syncs[to], syncAnswer{Sent: r.T, Partitions: assignment})
	case r.Event == "callback_end" && strings.HasPrefix(r.Detail, "revoked ["):
		list := strings.TrimSuffix(strings.TrimPrefix(r.Detail, "revoked ["), "]")
		o.revocations[r.Member] = append(o.revocations[r.Member], revocation{End: r.T, Partitions: strings.Fields(list)})
	case r.Event == string(sim.NoteGroupType):
		o.conversions = append(o.conversions, Conversion{At: r.T, To: strings.TrimSpace(r.Detail)})
	}
}

// endJoin closes member m's open JoinGroup at t.
func (o *observation) endJoin(m string, t float64) {
	if w := o.joins[m]; len(w) > 0 && math.IsInf(w[len(w)-1].End, 1) {
		w[len(w)-1].End = t
	}
}

// loseJoin marks member m's open JoinGroup as dropped by a partition.
func (o *observation) loseJoin(m string) {
	if w := o.joins[m]; len(w) > 0 && math.IsInf(w[len(w)-1].End, 1) {
		w[len(w)-1].Lost = true
	}
}

// syncAssignment reads a traced message body, as JSON decodes it, as a
// SyncGroupResponse: whether it is a successful one (error NONE), and
// then its assignment as topic-index names, sorted.
func syncAssignment(body any) ([]string, bool) {
	b, _ := body.(map[string]any)
	if b["error"] != "NONE" {
		return nil, false
	}
	a, _ := b["assignment"].(map[string]any)
	var out []string
	for topic, ps := range a {
		list, _ := ps.([]any)
		for _, p := range list {
			if n, ok := p.(float64); ok {
				out = append(out, fmt.Sprintf("%s-%d", topic, int(n)))
			}
		}
	}
	slices.Sort(out)
	return out, true
}

// annotate fills f's LostJoins, Revoking, Unheard and Conversions from o.
func (o *observation) annotate(f *Failure) {
	f.LostJoins, f.Revoking, f.Unheard, f.Conversions = nil, nil, nil, nil
	for _, m := range f.Members {
		// The member's last word from the coordinator before the
		// finding, or its process's start if it heard none since.
		if last, ok := lastAtOrBefore(slices.Concat(o.heard[m], o.starts[m]), f.At); ok {
			f.Unheard = append(f.Unheard, Since{Member: m, At: last})
		}
		// A JoinGroup whose answer will never come, still awaited at the
		// finding: the member hears nothing from the coordinator.
		for _, w := range o.joins[m] {
			if w.Lost && w.Sent <= f.At && f.At < w.End {
				f.LostJoins = append(f.LostJoins, Since{Member: m, At: w.Sent})
			}
		}
		// The member's newest classic assignment, sent before the
		// finding, leaves the finding's partitions out, and it revokes
		// them only after the finding, in the same process: it was in
		// the cooperative protocol's revocation, which it finishes later.
		var last *syncAnswer
		for i, a := range o.syncs[m] {
			if a.Sent <= f.At {
				last = &o.syncs[m][i]
			}
		}
		restarted := func(from, to float64) bool {
			return slices.ContainsFunc(o.starts[m], func(t float64) bool { return from < t && t <= to })
		}
		if last != nil && !restarted(last.Sent, f.At) &&
			!slices.ContainsFunc(f.Partitions, func(p string) bool { return slices.Contains(last.Partitions, p) }) &&
			slices.ContainsFunc(o.revocations[m], func(r revocation) bool {
				return r.End >= f.At && !restarted(f.At, r.End) &&
					!slices.ContainsFunc(f.Partitions, func(p string) bool { return !slices.Contains(r.Partitions, p) })
			}) {
			f.Revoking = append(f.Revoking, Since{Member: m, At: last.Sent})
		}
	}
	for _, c := range o.conversions {
		if c.At <= f.At {
			f.Conversions = append(f.Conversions, c)
		}
	}
}

// lastAtOrBefore returns the latest of ts at or before t, if any.
func lastAtOrBefore(ts []float64, t float64) (float64, bool) {
	last, ok := math.Inf(-1), false
	for _, x := range ts {
		if x <= t && x > last {
			last, ok = x, true
		}
	}
	return last, ok
}
