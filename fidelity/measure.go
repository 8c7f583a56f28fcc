package fidelity

// This file is the one place the suite feeds the simulator's ledger
// (sim.Replay): a real run is measured by the code that measures a
// simulated one.

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/sim"
)

// Measure turns a recording into the simulator's result for it: the
// lines become ledger observations in time order, and duplicates are
// counted from the offsets the members processed.
func Measure(sc *sim.Scenario, rec *Recording) (*sim.Result, error) {
	obs, err := Observations(sc, rec)
	if err != nil {
		return nil, err
	}
	r, err := sim.NewReplay(sc, rec.Protocol)
	if err != nil {
		return nil, err
	}
	for _, o := range obs {
		if err := r.Observe(o); err != nil {
			return nil, fmt.Errorf("measuring %s under %s: %w", sc.Name, rec.Protocol, err)
		}
	}
	res := r.Finish()
	// The offsets the members processed say what was processed twice;
	// the ledger's count models it from commits the runner does not log.
	res.Metrics.DuplicateRecords = float64(Duplicates(rec))
	return res, nil
}

// Observations maps every line to what the ledger is told, sorted by
// time (stable: lines of one process keep their order).
func Observations(sc *sim.Scenario, rec *Recording) ([]sim.Observation, error) {
	lines := append([]Line(nil), rec.Lines...)
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].T < lines[j].T })
	at := func(l Line) time.Duration { return max(0, time.Duration(l.T-rec.T0)*time.Microsecond) }
	type incKey struct {
		member string
		n      int
	}
	stopped := map[incKey]bool{}
	var members []string
	for _, m := range sc.Members {
		members = append(members, m.ID)
	}
	var out []sim.Observation
	emit := func(o sim.Observation) { out = append(out, o) }
	// A classic member's own rebalance is not logged (a listener sees
	// callbacks, not JoinGroup and SyncGroup), and the coordinator's
	// Stable comes before a cooperative member has revoked and rejoined
	// for the follow-up rebalance. So a classic member counts as
	// rebalancing from the coordinator's leaving Stable while it is in
	// the group until it enters onPartitionsAssigned at a generation it
	// did not also revoke in (ConsumerCoordinator.onJoinComplete: a
	// cooperative member that revoked rejoins at once).
	classic := rec.Protocol != sim.ProtocolNextgen
	revokedGen := map[string]int{}
	wasStable := false
	for _, l := range lines {
		t := at(l)
		if l.Member == "" {
			if l.Ev != "group" {
				continue
			}
			// The coordinator's view, from describing the group.
			stable := l.State == "Stable"
			emit(sim.Observation{At: t, Kind: sim.ObservedCoordinator, Stable: stable})
			if classic && wasStable && !stable {
				for _, m := range l.Members {
					if slices.Contains(members, m) {
						emit(sim.Observation{At: t, Kind: sim.ObservedRebalancing, Member: m, Rebalancing: true})
					}
				}
			}
			wasStable = stable
			if l.Epoch > 0 {
				emit(sim.Observation{At: t, Kind: sim.ObservedGeneration, Generation: l.Epoch})
			}
			for _, m := range members {
				n := 0
				for _, c := range l.Members {
					if c == m {
						n++
					}
				}
				emit(sim.Observation{At: t, Kind: sim.ObservedMembers, Member: m, Members: n})
			}
			continue
		}
		k := incKey{l.Member, l.Incarnation}
		if stopped[k] {
			continue
		}
		o := sim.Observation{At: t, Member: l.Member}
		switch {
		case l.Ev == "go":
			// The process starts when the runner says so, as in the
			// scenario; its JVM was up and its consumer built before.
			o.Kind = sim.ObservedStart
		case l.Ev == "closed":
			o.Kind, o.Clean = sim.ObservedStop, true
			stopped[k] = true
		case l.Ev == "exit" || (l.Ev == "signal" && l.Phase == "kill"):
			o.Kind = sim.ObservedStop
			stopped[k] = true
		case l.Ev == "signal" && l.Phase == "term":
			o.Kind = sim.ObservedClose
		case l.Ev == "signal" && l.Phase == "stop":
			o.Kind = sim.ObservedPause
		case l.Ev == "signal" && l.Phase == "cont":
			o.Kind = sim.ObservedResume
		case l.Ev == "gen":
			if l.Gen <= 0 {
				continue
			}
			o.Kind, o.Generation = sim.ObservedGeneration, l.Gen
		case l.Ev == "assigned" || l.Ev == "revoked" || l.Ev == "lost":
			tps, err := partitions(l.Parts)
			if err != nil {
				return nil, fmt.Errorf("member %s: %w", l.Member, err)
			}
			o.Partitions = tps
			switch {
			case l.Ev == "assigned" && l.Phase == "enter":
				o.Kind = sim.ObservedAssigned
				if classic && revokedGen[l.Member] != l.Gen {
					emit(sim.Observation{At: t, Kind: sim.ObservedRebalancing, Member: l.Member, Rebalancing: false})
				}
			case l.Ev == "revoked" && l.Phase == "enter":
				o.Kind = sim.ObservedRevoking
				revokedGen[l.Member] = l.Gen
			case l.Ev == "revoked":
				o.Kind = sim.ObservedRevoked
			case l.Ev == "lost" && l.Phase == "enter":
				o.Kind = sim.ObservedLost
			default:
				o.Kind = sim.ObservedCallbackDone
			}
			if l.Gen > 0 {
				emit(sim.Observation{At: t, Kind: sim.ObservedGeneration, Generation: l.Gen})
			}
		default:
			continue
		}
		emit(o)
	}
	return out, nil
}

// partitions parses "topic-N" names.
func partitions(names []string) ([]kafka.TopicPartition, error) {
	var out []kafka.TopicPartition
	for _, s := range names {
		i := strings.LastIndexByte(s, '-')
		if i < 0 {
			return nil, fmt.Errorf("partition %q is not topic-N", s)
		}
		n, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return nil, fmt.Errorf("partition %q is not topic-N", s)
		}
		out = append(out, kafka.TopicPartition{Topic: s[:i], Partition: int32(n)})
	}
	return out, nil
}

// Duplicates counts records processed more than once: per partition, the
// records of every processed range minus the distinct offsets among them.
func Duplicates(rec *Recording) int64 {
	ranges := map[string][][2]int64{}
	for _, l := range rec.Lines {
		if l.Ev == "processed" && l.Member != "" {
			ranges[l.Part] = append(ranges[l.Part], [2]int64{l.From, l.To})
		}
	}
	var dups int64
	for _, rs := range ranges {
		sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] })
		var total, distinct int64
		end := int64(-1)
		for _, r := range rs {
			total += r[1] - r[0] + 1
			if r[1] > end {
				distinct += r[1] - max(r[0], end+1) + 1
				end = r[1]
			}
		}
		dups += total - distinct
	}
	return dups
}
