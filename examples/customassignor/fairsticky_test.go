package customassignor_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/check"
	"github.com/rebalsim/rebalsim/examples/customassignor"
	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/protocols/classic/assignor"
	"github.com/rebalsim/rebalsim/scenarios"
)

// TestFairStickyProperties runs random groups through rounds of
// rebalancing, feeding each result back as the owned partitions, and checks
// what a cooperative assignor owes: no partition handed to a new owner while
// another member owns it, and a valid, balanced assignment once nothing is
// withheld.
func TestFairStickyProperties(t *testing.T) {
	a := customassignor.FairSticky("fair-sticky")
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		topics := []kafka.Topic{{Name: "a", Partitions: int32(1 + r.IntN(40))}, {Name: "b", Partitions: int32(r.IntN(20))}}
		total := int(topics[0].Partitions + topics[1].Partitions)
		owned := map[string]kafka.Assignment{}
		gen := int32(1)
		// Rounds 0-2 with one group size, 3-5 with another (members leave
		// or join), then quiet rounds until nothing is withheld.
		sizes := []int{1 + r.IntN(8), 1 + r.IntN(8)}
		for round := 0; round < 9; round++ {
			n := sizes[min(round/3, 1)]
			in := assignor.Input{Topics: topics}
			current := map[string]kafka.Assignment{}
			for i := 0; i < n; i++ {
				id := fmt.Sprintf("m%d", i)
				current[id] = owned[id]
				in.Members = append(in.Members, assignor.Subscription{MemberID: id, Topics: []string{"a", "b"}, Owned: owned[id], Generation: gen, HasGeneration: true})
			}
			res := a.Assign(in).Assignment
			for id, as := range res {
				for _, tp := range as.Partitions() {
					for other, o := range current {
						if other != id && o.Contains(tp) {
							t.Fatalf("trial %d round %d: %v handed to %s while %s still owns it", trial, round, tp, id, other)
						}
					}
				}
			}
			owned, gen = res, gen+1
		}
		seen, low, high := map[kafka.TopicPartition]bool{}, total, 0
		for _, as := range owned {
			low, high = min(low, as.Size()), max(high, as.Size())
			for _, tp := range as.Partitions() {
				if seen[tp] {
					t.Fatalf("trial %d: %v assigned twice", trial, tp)
				}
				seen[tp] = true
			}
		}
		if len(seen) != total || high-low > 1 {
			t.Fatalf("trial %d: after quiet rounds %d of %d partitions assigned, sizes %d..%d; want all, balanced", trial, len(seen), total, low, high)
		}
	}
}

// TestFairStickyInTheLab runs the 12-partition scale-out lab with the
// custom assignor replacing cooperative-sticky: it must move exactly the
// three partitions the new member takes, like Kafka's.
func TestFairStickyInTheLab(t *testing.T) {
	sc, err := scenarios.Example("scale-out")
	if err != nil {
		t.Fatal(err)
	}
	models := protocols.Models{ClientAssignors: []assignor.Assignor{customassignor.FairSticky("cooperative-sticky")}}
	res, err := rebalsim.Run(sc.Scenario, rebalsim.Options{Protocols: []string{"cooperative"}, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Runs[0].Metrics
	if m.MovedPartitions != 3 || m.Revocations != 3 || !m.Converged || len(res.Runs[0].Findings) != 0 {
		t.Fatalf("moved=%d revocations=%d converged=%v findings=%v; want 3, 3, true, none", m.MovedPartitions, m.Revocations, m.Converged, res.Runs[0].Findings)
	}
}

// TestScenarioNamesFairSticky loads a scenario file that names the custom
// assignor (assignors: [fair-sticky]) with a loader for the models that
// register it, and runs it: FairSticky is then the only assignor any member
// offers, so the run shows it at work.
func TestScenarioNamesFairSticky(t *testing.T) {
	const file = "testdata/fair-sticky-scale-out.yaml"
	models := protocols.Models{ClientAssignors: []assignor.Assignor{customassignor.FairSticky("fair-sticky")}}
	sc, err := scenarios.Loader{Models: models}.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := rebalsim.Run(sc.Scenario, rebalsim.Options{Models: models})
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Runs[0].Metrics
	// As in the lab with cooperative-sticky: c4 takes one partition from
	// each of c1, c2, c3 (3 moved, 3 revoked) over two rebalances, the
	// second one handing out what the first withheld.
	if m.MovedPartitions != 3 || m.Revocations != 3 || m.Rebalances != 2 || !m.Converged || len(rep.Runs[0].Findings) != 0 {
		t.Fatalf("moved=%d revocations=%d rebalances=%d converged=%v findings=%v; want 3, 3, 2, true, none",
			m.MovedPartitions, m.Revocations, m.Rebalances, m.Converged, rep.Runs[0].Findings)
	}
	sum, err := check.Check([]*scenarios.File{sc}, check.Options{Models: models})
	if err != nil {
		t.Fatal(err)
	}
	if pass, fail, undecided := sum.Count(); pass != 2 || fail+undecided != 0 {
		t.Errorf("the file's 2 expectations: %d passed, %d failed, %d undecided", pass, fail, undecided)
	}

	// Without the models that register it, the name is unknown, and the
	// error says where the file names it and what is registered.
	_, err = scenarios.LoadFile(file)
	want := file + ":11:15: unknown assignor \"fair-sticky\" in assignors (client assignors: range, roundrobin, sticky, cooperative-sticky)"
	if err == nil || err.Error() != want {
		t.Errorf("the built-in models' loader said\n%v\nwant\n%s", err, want)
	}
	// check.LoadFor reads it for the models too.
	if _, err := check.LoadFor(models, file); err != nil {
		t.Errorf("check.LoadFor: %v", err)
	}
}

// TestFairStickyRunsTheLibrary runs the whole scenario library with
// FairSticky standing in for cooperative-sticky: every expectation the
// library states for the cooperative protocol must hold for it too.
func TestFairStickyRunsTheLibrary(t *testing.T) {
	scs, err := check.Load("library")
	if err != nil {
		t.Fatal(err)
	}
	models := protocols.Models{ClientAssignors: []assignor.Assignor{customassignor.FairSticky("cooperative-sticky")}}
	sum, err := check.Check(scs, check.Options{Models: models, Protocols: []string{"cooperative"}})
	if err != nil {
		t.Fatal(err)
	}
	pass, fail, undecided := sum.Count()
	if fail+undecided > 0 || pass == 0 {
		var b strings.Builder
		sum.WriteText(&b, false)
		t.Fatalf("%d passed, %d failed, %d undecided:\n%s", pass, fail, undecided, b.String())
	}
	t.Logf("%d checks passed over %d scenarios", pass, len(scs))
}
