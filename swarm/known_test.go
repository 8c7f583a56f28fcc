package swarm

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// TestKnownDefectsStillFail: each reproducer of an open defect in
// testdata/known (written by `rebalsim swarm --corpus`, named
// <class>-<protocol>-seed<N>.yaml) still fails the way its name says
// under the real models. When a fix makes one pass, this test fails:
// remove the file and the KnownDefect entry it stands for.
func TestKnownDefectsStillFail(t *testing.T) {
	files, err := filepath.Glob("testdata/known/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// One reproducer per open family of KnownDefect: there is none, so
	// a file here without an entry there (or the reverse) is a mistake.
	if len(files) != 0 {
		t.Fatalf("found %d reproducers in testdata/known, want 0 (KnownDefect lists no open defect)", len(files))
	}
	for _, file := range files {
		sc, protocol := loadReproducer(t, file)
		r, err := sim.Run(sc.Scenario, protocols.Default(), sim.RunOptions{Protocol: protocol, Timeline: true})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		want := map[string]string{"safety": "double_ownership", "liveness": "not_converged"}[reproducerClass(file)]
		found := false
		for _, f := range r.Findings {
			found = found || f.Kind == want
		}
		if !found {
			t.Errorf("%s: no %s finding under %s any more: the defect looks fixed; remove the file and its KnownDefect entry", file, want, protocol)
		}
	}
}

// TestHazardReproducers: the reproducers of failures that were traced
// to a Kafka hazard (testdata/hazards, named like the corpus: shrunk by
// the swarm from a seed, or written by hand from the mechanism where no
// seed shows it any more) still fail under the real models, and the
// swarm's judge classifies every failure of theirs as the hazard the
// file's comment names, so none is a defect.
func TestHazardReproducers(t *testing.T) {
	want := map[string]string{
		// c2 is revoking t1-5 (its 2s onPartitionsRevoked) when c3's
		// first heartbeat on the consumer protocol upgrades the group.
		"testdata/hazards/safety-cooperative-revoking-upgrade.yaml": revokingAtUpgrade,
		// c11's JoinGroup answer is lost while it is cut off; the group
		// is upgraded, downgraded and upgraded while it waits.
		"testdata/hazards/safety-cooperative-seed409.yaml": lostJoinRevocation,
		// c6, cut off across a downgrade and an upgrade, claims t1-13
		// after the cut heals until it is fenced. Shrunk when it showed
		// unheardRevocation; since the coordinator reads the requests
		// behind a held JoinGroup only once it has answered it
		// (sim.HeldRequest), the members' leaves and rejoins come later
		// and the same storm loses c6's pending revocation in the
		// downgrade itself. No seed of 1-500 shows unheardRevocation any
		// more; its near misses are in TestMigrationSignatures.
		"testdata/hazards/safety-eager-seed107.yaml": lostRevocation,
	}
	files, err := filepath.Glob("testdata/hazards/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Fatalf("found %d reproducers in testdata/hazards, want %d", len(files), len(want))
	}
	for _, file := range files {
		sc, protocol := loadReproducer(t, file)
		s := &Spec{Description: sc.Scenario.Description}
		for _, m := range sc.Scenario.Members {
			// A member's own protocol decides which hazards can hold.
			member := Member{ID: m.ID, Start: m.Start}
			if m.Settings.Protocol != nil {
				member.Settings.Protocol = *m.Settings.Protocol
			}
			if m.Settings.GroupProtocol != nil {
				member.Settings.GroupProtocol = *m.Settings.GroupProtocol
			}
			s.Members = append(s.Members, member)
		}
		for _, e := range sc.Scenario.Events {
			ev := Event{At: e.At, Kind: string(e.Kind), Members: e.Members, For: e.For, Interval: e.Interval}
			if e.Set.GroupProtocol != nil {
				ev.Set.GroupProtocol = *e.Set.GroupProtocol
			}
			s.Events = append(s.Events, ev)
		}
		found := Judge(s, &File{Scenario: sc.Scenario}, protocols.Default())
		hazard := false
		for _, f := range found {
			if f.Protocol != protocol || f.Class != Safety {
				continue
			}
			if f.Hazard == "" {
				t.Errorf("%s: a defect: %s", file, f)
			}
			hazard = hazard || f.Hazard == want[file]
		}
		if !hazard {
			t.Errorf("%s: no safety failure under %s classified as %q", file, protocol, want[file])
		}
	}
}

// loadReproducer loads a corpus file and returns it with the protocol
// its name gives.
func loadReproducer(t *testing.T, file string) (*scenarios.File, string) {
	t.Helper()
	sc, err := scenarios.LoadFile(file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return sc, strings.Split(filepath.Base(file), "-")[1]
}

// reproducerClass is the failure class a corpus file's name gives.
func reproducerClass(file string) string {
	return strings.Split(filepath.Base(file), "-")[0]
}
