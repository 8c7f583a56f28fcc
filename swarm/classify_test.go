package swarm

import (
	"testing"
	"time"
)

// TestClassify: the hazards match only their own signature, a pending
// member shares the hazard that refused it, and anything else is a defect.
func TestClassify(t *testing.T) {
	mixed := &Spec{Description: "mixed classic and consumer-protocol group"}
	plain := &Spec{}
	unreleased := Failure{Class: Liveness, Key: "join_failure:UNRELEASED_INSTANCE_ID", Members: []string{"c2"}}
	notFound := Failure{Class: Liveness, Key: "join_failure:GROUP_ID_NOT_FOUND", Members: []string{"c3"}}
	pending := func(members ...string) Failure {
		return Failure{Class: Liveness, Key: "not_converged:members", Members: members}
	}
	for _, tc := range []struct {
		name   string
		spec   *Spec
		f      Failure
		run    []Failure
		hazard bool
	}{
		{"unreleased instance id", plain, unreleased, nil, true},
		// GROUP_ID_NOT_FOUND is a hazard only where the group migrates.
		{"group id not found in a migration", mixed, notFound, nil, true},
		{"group id not found without one", plain, notFound, nil, false},
		{"pending because refused", plain, pending("c2"), []Failure{unreleased}, true},
		{"pending, one of them not refused", plain, pending("c2", "c4"), []Failure{unreleased}, false},
		{"pending with no refusal", plain, pending("c2"), nil, false},
		{"double ownership", mixed, Failure{Class: Safety, Key: "double_ownership"}, nil, false},
	} {
		if got := Classify(tc.spec, tc.f, tc.run) != ""; got != tc.hazard {
			t.Errorf("%s: hazard %v, want %v", tc.name, got, tc.hazard)
		}
	}
}

// TestClassifyClassicStaticHazards: the two classic static-membership
// hazards match their mechanism and nothing that merely looks alike.
func TestClassifyClassicStaticHazards(t *testing.T) {
	// The shape of seed 186, shrunk: c2 is static and stalls from 94.674s
	// for 48.842s; c1 is dynamic.
	stalled := &Spec{
		Members: []Member{{ID: "c1"}, {ID: "c2", Settings: Settings{Static: true}}},
		Events:  []Event{{At: 94674 * time.Millisecond, Kind: "stall", Members: []string{"c2"}, For: 48842 * time.Millisecond}},
	}
	double := func(at float64, members ...string) Failure {
		return Failure{Class: Safety, Protocol: "eager", Key: "double_ownership", Members: members, At: at}
	}
	// The shape of seed 198, shrunk: t2 has one partition, static c2
	// leaves at 20s, t2 grows to 2 at 27.92s and c2 is back at 29.896s.
	away := &Spec{
		Topics:   []Topic{{Name: "t2", Partitions: 1}},
		Defaults: Settings{Static: true},
		Members:  []Member{{ID: "c2"}},
		Events: []Event{
			{At: 20 * time.Second, Kind: "leave", Members: []string{"c2"}},
			{At: 27920 * time.Millisecond, Kind: "add_partitions", Topic: "t2", Count: 2},
			{At: 29896 * time.Millisecond, Kind: "start", Members: []string{"c2"}},
		},
	}
	// The same growth after c2 is back: a leader that was there saw it.
	back := *away
	back.Events = []Event{away.Events[0], away.Events[2], {At: 40 * time.Second, Kind: "add_partitions", Topic: "t2", Count: 2}}
	unowned := func(protocol string, partitions ...string) Failure {
		return Failure{Class: Liveness, Protocol: protocol, Key: "not_converged:partitions", Partitions: partitions}
	}
	for _, tc := range []struct {
		name   string
		spec   *Spec
		f      Failure
		hazard bool
	}{
		// 128.88s: the leader's assignment lands while c2 is stalled.
		{"static owner stalled", stalled, double(128.88, "c1", "c2"), true},
		// 150s: after the stall, c2 is not frozen: a defect.
		{"static owner no longer stalled", stalled, double(150, "c1", "c2"), false},
		{"stalled owner is not in the finding", stalled, double(128.88, "c1", "c3"), false},
		{"consumer protocol is not the classic hazard", stalled, Failure{Class: Safety, Protocol: "nextgen", Key: "double_ownership", Members: []string{"c1", "c2"}, At: 128.88}, false},
		{"added while the static leader was away", away, unowned("cooperative", "t2-1"), true},
		// t2-0 existed from the start: its being unowned is something else.
		{"an original partition unowned", away, unowned("cooperative", "t2-0", "t2-1"), false},
		{"added after the static member came back", &back, unowned("cooperative", "t2-1"), false},
		{"nextgen assigns new partitions itself", away, unowned("nextgen", "t2-1"), false},
	} {
		got := Classify(tc.spec, tc.f, nil)
		if (got != "") != tc.hazard {
			t.Errorf("%s: hazard %q, want a hazard: %v", tc.name, got, tc.hazard)
		}
		if tc.hazard && KnownDefect(tc.spec, tc.f) != "" {
			t.Errorf("%s: also a known defect", tc.name)
		}
	}
}

// TestKnownDefectSignatures: each open defect's signature takes its own
// mechanism only; a double ownership or a stuck group of the same broad
// shape but another mechanism is a new defect ("").
func TestKnownDefectSignatures(t *testing.T) {
	// The shape of seed 146: c3 runs the consumer protocol, c5 classic.
	mixed := &Spec{Description: "mixed classic and consumer-protocol group", Members: []Member{{ID: "c3", Settings: Settings{Protocol: "nextgen"}}, {ID: "c5", Settings: Settings{Protocol: "cooperative"}}}}
	// The shape of seed 232: c29 restarts onto the consumer protocol;
	// c31 and c34 stay classic.
	upgrade := &Spec{Members: []Member{{ID: "c29"}, {ID: "c31"}, {ID: "c34"}},
		Events: []Event{{At: time.Minute, Kind: "rolling_restart", Members: []string{"c29"}, For: 3 * time.Second, Set: Settings{GroupProtocol: "consumer"}}}}
	// Classic only, a static member and no migration: what the old
	// "classic static member double ownership" signature took.
	plainStatic := &Spec{Members: []Member{{ID: "c1"}, {ID: "c2", Settings: Settings{Static: true}}}}
	// The shape of seed 101: c12 is cut off the network.
	cut := &Spec{Members: []Member{{ID: "c12"}, {ID: "c13"}},
		Events: []Event{{At: time.Minute, Kind: "network_partition", Members: []string{"c12"}, For: 23 * time.Second}}}
	double := func(members ...string) Failure {
		return Failure{Class: Safety, Protocol: "cooperative", Key: "double_ownership", Members: members}
	}
	stuck := func(state string, members ...string) Failure {
		return Failure{Class: Liveness, Protocol: "eager", Key: "not_converged:members", Members: members,
			Detail: "not_converged (the group was not stable at the horizon: 1 members pending, group state " + state + ")"}
	}
	for _, tc := range []struct {
		name string
		spec *Spec
		f    Failure
		want string
	}{
		{"classic and consumer owners", mixed, double("c5", "c3"), "double ownership during the KIP-848 online migration"},
		{"owner restarted onto the consumer protocol", upgrade, double("c34", "c29"), "double ownership during the KIP-848 online migration"},
		{"two classic owners in a migrating group", upgrade, double("c34", "c31"), "double ownership between two classic members in a migrating group"},
		{"static member, no migration, not frozen", plainStatic, double("c1", "c2"), ""},
		{"stuck in the join phase after a cut", cut, stuck("PREPARING_REBALANCE", "c12"), "classic member never rejoins after being fenced"},
		{"stuck, the pending member never cut off", cut, stuck("PREPARING_REBALANCE", "c13"), ""},
		{"stuck in another state", cut, stuck("COMPLETING_REBALANCE", "c12"), ""},
		{"unowned partitions without a static return", plainStatic, Failure{Class: Liveness, Protocol: "eager", Key: "not_converged:partitions", Partitions: []string{"t1-3"}}, ""},
	} {
		if got := KnownDefect(tc.spec, tc.f); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
