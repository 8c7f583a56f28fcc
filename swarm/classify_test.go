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

// TestMigrationSignatures: the migration hazards take their own
// mechanism only; a double ownership of the same broad shape with
// another mechanism is a defect (""), and no defect is a known one any
// more.
func TestMigrationSignatures(t *testing.T) {
	// The shape of seed 51: c1 restarts onto the consumer protocol at
	// 20s for 19.6s and is restarted again at 47.4s (the downgrade, then
	// the upgrade); classic c3 stalls from 32.5s for 73.2s.
	bounce := &Spec{
		Members: []Member{{ID: "c1"}, {ID: "c3"}},
		Events: []Event{
			{At: 20 * time.Second, Kind: "restart", Members: []string{"c1"}, For: 19622 * time.Millisecond, Set: Settings{GroupProtocol: "consumer"}},
			{At: 32496 * time.Millisecond, Kind: "stall", Members: []string{"c3"}, For: 73176 * time.Millisecond},
			{At: 47411 * time.Millisecond, Kind: "rolling_restart", Members: []string{"c1"}, Interval: 20 * time.Second, For: 3 * time.Second},
		},
	}
	// The shape of seed 409: classic c11 is cut off from 48.6s for
	// 45.7s; c1 restarts onto the consumer protocol at 88.4s (the group
	// is upgraded at 91.5s), again at 115.2s (downgraded then, upgraded
	// at 120.8s when it is back); c13 stays classic.
	upgraded := &Spec{
		Members: []Member{{ID: "c1"}, {ID: "c11"}, {ID: "c13"}},
		Events: []Event{
			{At: 48645 * time.Millisecond, Kind: "network_partition", Members: []string{"c11"}, For: 45749 * time.Millisecond},
			{At: 88368 * time.Millisecond, Kind: "rolling_restart", Members: []string{"c1"}, Interval: 15 * time.Second, For: 3 * time.Second, Set: Settings{GroupProtocol: "consumer"}},
		},
	}
	// What seed 409's trace shows: c11 sent a JoinGroup at 36.1s whose
	// answer the partition dropped, and waits for it until 341s.
	conversions := []Conversion{{91.505, "consumer"}, {115.19, "classic"}, {120.827, "consumer"}}
	lost := []Since{{Member: "c11", At: 36.128}}
	// The shape of testdata/hazards/safety-cooperative-revoking-upgrade.yaml
	// (seed 38's mechanism): c3 starts on the consumer protocol at 31s
	// and its first heartbeat upgrades the group at 31.001s; classic c2
	// was sent an assignment without t1-5 at 30.011s and revokes it
	// until 32.012s.
	revoking := &Spec{
		Description: "mixed classic and consumer-protocol group",
		Members:     []Member{{ID: "c1"}, {ID: "c2"}, {ID: "c3", Start: 31 * time.Second, Settings: Settings{Protocol: "nextgen"}}},
	}
	upgrade := []Conversion{{31.001, "consumer"}}
	inRevocation := []Since{{Member: "c2", At: 30.011}}
	// The shape of seed 107: classic c6 and c7 are cut off from
	// 437.63s for 55.972s (until 493.602s); c3 is restarted onto the
	// consumer protocol at 320.443s.
	healed := &Spec{
		Members: []Member{{ID: "c3"}, {ID: "c6"}, {ID: "c7"}},
		Events: []Event{
			{At: 320443 * time.Millisecond, Kind: "rolling_restart", Members: []string{"c3"}, Interval: 25836 * time.Millisecond, For: 1132 * time.Millisecond, Set: Settings{GroupProtocol: "consumer"}},
			{At: 437630 * time.Millisecond, Kind: "network_partition", Members: []string{"c6", "c7"}, For: 55972 * time.Millisecond},
		},
	}
	// What seed 107's trace shows: c6 last heard from the coordinator
	// at 435.284s (its SyncGroup answer), c7 at 494.132s (the one that
	// gave it the partitions); the group was downgraded at 445.986s
	// and upgraded at 453.024s.
	bounced := []Conversion{{445.986, "classic"}, {453.024, "consumer"}}
	unheardSince := []Since{{Member: "c6", At: 435.284}, {Member: "c7", At: 494.132}}
	unheard := func(f Failure, u []Since, cs []Conversion) Failure {
		f.Unheard, f.Conversions = u, cs
		return f
	}
	plain := &Spec{Members: []Member{{ID: "c1"}, {ID: "c2", Settings: Settings{Static: true}}}}
	double := func(at float64, zombies []string, members ...string) Failure {
		return Failure{Class: Safety, Protocol: "cooperative", Key: "double_ownership", Members: members, At: at, Zombies: zombies}
	}
	observed := func(f Failure, lost, revoking []Since, cs []Conversion) Failure {
		f.LostJoins, f.Revoking, f.Conversions = lost, revoking, cs
		return f
	}
	for _, tc := range []struct {
		name   string
		spec   *Spec
		f      Failure
		hazard string
	}{
		// 50.6s: c1 is back on the consumer protocol, c3 still stalled.
		{"frozen classic owner after the bounce", bounce, double(50.6, nil, "c3", "c1"), lostRevocation},
		// 120s: the stall is over; nothing explains it.
		{"classic owner no longer frozen", bounce, double(120, nil, "c3", "c1"), ""},
		// c11 was a zombie before the finding: it rejoined with its old id.
		{"zombie classic owner rejoins", upgraded, double(120.9, []string{"c11"}, "c11", "c1"), zombieRejoin},
		// The zombie is the consumer-protocol member: not the classic path.
		{"zombie on the consumer protocol", upgraded, double(120.9, []string{"c1"}, "c11", "c1"), ""},
		// Seed 409 itself: c11 is back from its cut at 94.4s, no zombie,
		// and without the trace nothing explains it.
		{"classic and consumer owners after an upgrade, unobserved", upgraded, double(120.9, nil, "c11", "c1"), ""},
		// With the trace: c11 awaits its lost JoinGroup across the
		// downgrade and the upgrade.
		{"owner waits on a lost JoinGroup across a downgrade and upgrade", upgraded, observed(double(120.9, nil, "c11", "c1"), lost, nil, conversions), lostJoinRevocation},
		// The upgraded group's target may give the partition to a
		// classic member too (seed 409's c13).
		{"lost JoinGroup, the new owner classic", upgraded, observed(double(120.96, nil, "c11", "c13"), lost, nil, conversions), lostJoinRevocation},
		// Near misses: an upgrade but no downgrade after the JoinGroup
		// went out (the pending revocation was never forgotten) ...
		{"lost JoinGroup, no downgrade after it", upgraded, observed(double(100, nil, "c11", "c1"), lost, nil, conversions[:1]), ""},
		// ... the downgrade and upgrade came before the JoinGroup ...
		{"lost JoinGroup sent after the conversions", upgraded, observed(double(130, nil, "c11", "c1"), []Since{{Member: "c11", At: 125}}, nil, conversions), ""},
		// ... or the member waiting is the consumer-protocol one.
		{"lost JoinGroup of the consumer-protocol owner", upgraded, observed(double(120.9, nil, "c11", "c1"), []Since{{Member: "c1", At: 36.128}}, nil, conversions), ""},
		// c2 is revoking t1-5 when the group is upgraded and c3, on the
		// consumer protocol, is given it.
		{"owner revoking when the group is upgraded", revoking, observed(double(31.002, nil, "c2", "c3"), nil, inRevocation, upgrade), revokingAtUpgrade},
		// Near misses: the assignment came after the upgrade (the
		// consumer group knew of the revocation) ...
		{"revoking, the assignment after the upgrade", revoking, observed(double(31.5, nil, "c2", "c3"), nil, []Since{{Member: "c2", At: 31.2}}, upgrade), ""},
		// ... no upgrade at all ...
		{"revoking, no upgrade", revoking, observed(double(31.002, nil, "c2", "c3"), nil, inRevocation, nil), ""},
		// ... or both owners classic (the classic protocol never gives
		// a partition on before its revocation).
		{"revoking, the other owner classic", revoking, observed(double(31.002, nil, "c2", "c1"), nil, inRevocation, upgrade), ""},
		// Seed 107: the cut healed at 493.602s; c6 still believes what
		// it heard before the downgrade and the upgrade.
		{"owner unheard across a downgrade and upgrade, back", healed, unheard(double(494.143, nil, "c6", "c7"), unheardSince, bounced), unheardRevocation},
		// Near misses: c6 heard from the coordinator after the upgrade
		// (its answer fenced it or told it to rejoin) ...
		{"owner heard after the upgrade", healed, unheard(double(494.5, nil, "c6", "c7"), []Since{{Member: "c6", At: 494.409}, {Member: "c7", At: 494.132}}, bounced), ""},
		// ... only an upgrade came after its last word (the consumer
		// group took what the classic group knew it owned) ...
		{"owner unheard across an upgrade only", healed, unheard(double(494.143, nil, "c6", "c7"), unheardSince, bounced[1:]), ""},
		// ... or the trace was not read.
		{"owner unheard, unobserved", healed, double(494.143, nil, "c6", "c7"), ""},
		// Before 88.4s c1 is classic too: two classic owners are new.
		{"two classic owners in a migrating group", upgraded, double(60, nil, "c11", "c1"), ""},
		{"static member, no migration, not frozen", plain, double(60, nil, "c1", "c2"), ""},
		{"stuck group", plain, Failure{Class: Liveness, Protocol: "eager", Key: "not_converged:members", Members: []string{"c1"}}, ""},
	} {
		if got := Classify(tc.spec, tc.f, nil); got != tc.hazard {
			t.Errorf("%s: hazard %q, want %q", tc.name, got, tc.hazard)
		}
		if got := KnownDefect(tc.spec, tc.f); got != "" {
			t.Errorf("%s: known defect %q, want none (none is open)", tc.name, got)
		}
	}
}

// TestClassicAtRollingRestartTurn: a rolling restart moves each member
// onto its new protocol at its own turn, not at the event's start.
func TestClassicAtRollingRestartTurn(t *testing.T) {
	// Seed 409: c1, c7 and c16 are restarted onto the consumer protocol
	// 17.562s apart from 115.181s, so c16's turn is at 150.305s.
	s := &Spec{
		Members: []Member{{ID: "c1"}, {ID: "c7"}, {ID: "c16"}},
		Events:  []Event{{At: 115181 * time.Millisecond, Kind: "rolling_restart", Members: []string{"c1", "c7", "c16"}, Interval: 17562 * time.Millisecond, For: 5645 * time.Millisecond, Set: Settings{GroupProtocol: "consumer"}}},
	}
	for _, tc := range []struct {
		member  string
		at      float64
		classic bool
	}{
		{"c1", 115.2, false},
		{"c16", 121, true},
		{"c16", 150.305, false},
	} {
		if got := classicAt(s, tc.member, tc.at); got != tc.classic {
			t.Errorf("%s at %gs: classic %v, want %v", tc.member, tc.at, got, tc.classic)
		}
	}
}
