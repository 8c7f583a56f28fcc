package swarm

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// Class names what went wrong in a run.
type Class string

const (
	// Safety: two current members owned one partition at once.
	Safety Class = "safety"
	// Liveness: the group was not stable again within the bound after
	// the storm healed, or a member could not join.
	Liveness Class = "liveness"
	// DataPlane: after the group settled, a partition that a running
	// member subscribes to had no processing owner, or a metric was not a
	// finite non-negative number.
	DataPlane Class = "data_plane"
	// Invalid: the generated file did not load or the run failed; a bug
	// of the generator or the simulator.
	Invalid Class = "invalid"
)

// Failure is one check that did not hold on one run.
type Failure struct {
	Class    Class
	Protocol string
	// Hazard names the documented Kafka hazard the failure is an instance
	// of, "" for a defect (see Classify).
	Hazard string
	// Known names the open, known defect of the models the failure looks
	// like, "" if none (see KnownDefect); it is still a defect.
	Known string
	// Key tells failures of one class apart for the shrinker: the
	// finding's kind and, for a join failure, Kafka's error code.
	Key    string
	Detail string
	// Members are the members the finding names; At is when the finding
	// was made, in seconds of virtual time.
	Members []string
	At      float64
	// Partitions are the partitions the finding names.
	Partitions []string
	// Zombies are the members of a safety finding that the run had
	// already found processing after the coordinator fenced or removed
	// them (sim's zombie_processing), at or before At.
	Zombies []string
	// LostJoins, Revoking and Conversions are what the run's trace shows
	// at a finding that needs it (see needsObservation), nil otherwise:
	// the members of the finding still waiting at At for the answer to a
	// JoinGroup a network partition dropped, since they sent it; the
	// members of the finding whose newest classic assignment, sent
	// before At, leaves its partitions out and who revoke them after At,
	// since that assignment was sent; the members of the finding and
	// when they last heard from the coordinator (anything it sent them
	// that arrived, or their process's start) before At; and the
	// group's conversions between the protocols up to At.
	LostJoins   []Since
	Revoking    []Since
	Unheard     []Since
	Conversions []Conversion
}

func (f Failure) String() string {
	s := fmt.Sprintf("%s under %s: %s", f.Class, f.Protocol, f.Detail)
	if f.Hazard != "" {
		s += " [hazard: " + f.Hazard + "]"
	}
	if f.Known != "" {
		s += " [known defect: " + f.Known + "]"
	}
	return s
}

// same reports whether g is the same failure as f for the shrinker: the
// same class and key under the same protocol.
func (f Failure) same(g Failure) bool {
	return f.Class == g.Class && f.Protocol == g.Protocol && f.Key == g.Key
}

// File is a Spec written out with its horizon and expectations, and the
// scenario the normal loader made of it.
type File struct {
	YAML     []byte
	Scenario *sim.Scenario
	// Healed is when the storm's last fault healed; Bound is how long the
	// group may then take to be stable again.
	Healed, Bound time.Duration
}

// Build writes s as a scenario file and loads it. The horizon is the
// heal time plus the liveness bound, which comes from the settings of the
// loaded scenario (see bound); the file's expect: section states both
// checks `rebalsim check` can replay: converged_within the bound and
// no_double_ownership.
func Build(s *Spec) (*File, error) {
	healed := s.Healed()
	draft, err := scenarios.Parse(s.Name+".yaml", s.YAML(healed+time.Hour, nil))
	if err != nil {
		return nil, err
	}
	b := bound(draft.Scenario, s)
	expect := []string{
		fmt.Sprintf("{converged_within: %s}", dur(b)),
		"{no_double_ownership: true}",
	}
	y := s.YAML(healed+b+time.Second, expect)
	sc, err := scenarios.Parse(s.Name+".yaml", y)
	if err != nil {
		return nil, err
	}
	return &File{YAML: y, Scenario: sc.Scenario, Healed: healed, Bound: b}, nil
}

// bound is the liveness bound: how long after the last fault heals a
// correct protocol may take to be stable again, from the largest settings
// any member has under any protocol of the run. Each term is a wait
// Kafka's protocols allow:
//   - a session timeout, for the coordinator to expire a member that
//     crashed (the classic member's session.timeout.ms, the consumer
//     group's group.consumer.session.timeout.ms);
//   - a max.poll.interval.ms, the classic rebalance timeout the join
//     phase waits for a member that does not rejoin (and the consumer
//     protocol's revocation deadline);
//   - two heartbeat intervals, until members hear of the rebalance;
//   - the initial rebalance delay of an empty classic group;
//   - a request timeout, for a request sent into a partition that healed;
//   - metadata.max.age.ms when topics grow or subscriptions change, until
//     a classic leader sees the new metadata;
//   - four rounds of the callbacks and the commit (cooperative needs two
//     rebalances, each revoking and assigning);
//   - ten seconds of slack for network delays and backoffs.
func bound(sc *sim.Scenario, s *Spec) time.Duration {
	g := sim.ResolveGroupConfigFor(sc.Group, sc.KafkaVersion)
	session, poll, hb, req, meta, cb := g.SessionTimeout, time.Duration(0), g.HeartbeatInterval, time.Duration(0), time.Duration(0), time.Duration(0)
	for _, m := range sc.Members {
		var patches []sim.ConsumerSettings
		for _, e := range sc.Events {
			if (e.Kind == sim.EventRestart || e.Kind == sim.EventRollingRestart) && slices.Contains(e.Members, m.ID) {
				patches = append(patches, e.Set)
			}
		}
		for _, p := range sc.Protocols {
			for n := 0; n <= len(patches); n++ {
				c, err := sim.ResolveConfig(sc, p, m, patches[:n])
				if err != nil {
					continue
				}
				session, poll, hb = max(session, c.SessionTimeout), max(poll, c.MaxPollInterval), max(hb, c.HeartbeatInterval)
				req, meta = max(req, c.RequestTimeout), max(meta, c.MetadataMaxAge)
				cb = max(cb, c.RevokeCallback+c.AssignCallback+c.LostCallback+c.CommitLatency)
			}
		}
	}
	b := session + poll + 2*hb + g.InitialRebalanceDelay + req + 4*cb + 10*time.Second
	if slices.ContainsFunc(s.Events, func(e Event) bool { return e.Kind == "add_partitions" || e.Kind == "subscribe" }) {
		b += meta
	}
	return b.Round(time.Second)
}

// Judge runs f under each protocol of its scenario with models and
// returns what did not hold, classified.
func Judge(s *Spec, f *File, models sim.Models) []Failure {
	var out []Failure
	st := newState(s)
	for _, p := range f.Scenario.Protocols {
		r, err := sim.Run(f.Scenario, models, sim.RunOptions{Protocol: p, Timeline: true})
		if err != nil {
			out = append(out, Failure{Class: Invalid, Protocol: p, Detail: err.Error()})
			continue
		}
		found := judgeRun(st, r)
		var o *observation
		for i := range found {
			found[i].Protocol = p
			found[i].Hazard = Classify(s, found[i], found)
			if needsObservation(s, found[i]) {
				if o == nil {
					if o, err = observe(f, models, p); err != nil {
						out = append(out, Failure{Class: Invalid, Protocol: p, Detail: err.Error()})
						o = newObservation()
					}
				}
				o.annotate(&found[i])
				found[i].Hazard = Classify(s, found[i], found)
			}
			if found[i].Hazard == "" {
				found[i].Known = KnownDefect(s, found[i])
			}
		}
		out = append(out, found...)
	}
	return out
}

// judgeRun applies the swarm's three oracles to one result.
func judgeRun(st *state, r *sim.Result) []Failure {
	var out []Failure
	zombie := map[string]float64{} // member → when it was first found a zombie
	for _, f := range r.Findings {
		if f.Kind == "zombie_processing" {
			for _, m := range f.Members {
				if at, ok := zombie[m]; !ok || f.At < at {
					zombie[m] = f.At
				}
			}
		}
	}
	for _, f := range r.Findings {
		switch {
		case f.Safety:
			var zombies []string
			for _, m := range f.Members {
				if at, ok := zombie[m]; ok && at <= f.At {
					zombies = append(zombies, m)
				}
			}
			out = append(out, Failure{Class: Safety, Key: f.Kind, Detail: describe(f), Members: f.Members, At: f.At, Partitions: f.Partitions, Zombies: zombies})
		case f.Kind == "join_failure":
			out = append(out, Failure{Class: Liveness, Key: f.Kind + ":" + errorCode(f.Detail), Detail: describe(f), Members: f.Members})
		case f.Kind == "not_converged":
			key := f.Kind + ":partitions"
			if len(f.Members) > 0 {
				key = f.Kind + ":members"
			}
			out = append(out, Failure{Class: Liveness, Key: key, Detail: describe(f), Members: f.Members, Partitions: f.Partitions})
		}
	}
	if bad := badMetrics(r.Metrics); bad != "" {
		out = append(out, Failure{Class: DataPlane, Key: "metric", Detail: bad})
	}
	if len(out) > 0 {
		return out // the data plane is only judged on a settled group
	}
	if p := unprocessed(st, r); len(p) > 0 {
		out = append(out, Failure{Class: DataPlane, Key: "unprocessed", Detail: "at the horizon nobody processes " + strings.Join(p[:min(len(p), 5)], ", ")})
	}
	return out
}

func describe(f sim.Finding) string {
	s := fmt.Sprintf("%s at %gs", f.Kind, f.At)
	if len(f.Members) > 0 {
		s += " members " + strings.Join(f.Members[:min(len(f.Members), 5)], ",")
	}
	if len(f.Partitions) > 0 {
		s += " partitions " + strings.Join(f.Partitions[:min(len(f.Partitions), 5)], ",")
	}
	if f.Detail != "" {
		s += " (" + f.Detail + ")"
	}
	return s
}

// badMetrics names the first metric that is not a finite non-negative
// number (every metric of the contract is an amount).
func badMetrics(m sim.Metrics) string {
	for _, name := range sim.MetricNames() {
		v, _ := m.Value(name)
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Sprintf("metric %s is %v", name, v)
		}
	}
	return ""
}

// unprocessed lists the partitions that, at the horizon, no member
// processes although a running member subscribes to their topic.
func unprocessed(st *state, r *sim.Result) []string {
	last := map[string]sim.Segment{}
	var names []string
	for _, seg := range r.Timeline {
		if _, ok := last[seg.Partition]; !ok {
			names = append(names, seg.Partition)
		}
		if seg.End >= last[seg.Partition].End {
			last[seg.Partition] = seg
		}
	}
	var out []string
	for _, p := range names {
		seg := last[p]
		topic := p[:strings.LastIndexByte(p, '-')]
		if seg.State != "processing" && st.subscribed(topic) {
			out = append(out, fmt.Sprintf("%s (%s)", p, seg.State))
		}
	}
	return out
}

// errorCode picks Kafka's error code (an upper-case word such as
// UNRELEASED_INSTANCE_ID) out of a join failure's detail, "" if none.
func errorCode(detail string) string {
	for _, w := range strings.FieldsFunc(detail, func(r rune) bool { return r == ' ' || r == ':' || r == ',' || r == '(' || r == ')' }) {
		if len(w) > 3 && strings.ToUpper(w) == w && strings.ContainsRune(w, '_') {
			return w
		}
	}
	return ""
}
