package assignor

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// TestAssignEachMatchesAssign checks that AssignGroup, through AssignEach,
// gives every member, in spec order, what Assign gives it by id, for both
// built-in assignors on random groups of both subscription types.
func TestAssignEachMatchesAssign(t *testing.T) {
	eachRandomGroup(t, 7, 500, func(a Assignor, run int, _ SubscriptionType, spec GroupSpec, topics []kafka.Topic, byID map[string]kafka.Assignment) {
		each, err := AssignEach(a, spec, topics)
		if err != nil {
			t.Fatal(err)
		}
		if len(each) != len(spec.Members) {
			t.Fatalf("%s run %d: %d results for %d members", a.Name(), run, len(each), len(spec.Members))
		}
		for i, m := range spec.Members {
			if each[i] == nil || !each[i].Equal(byID[m.ID]) {
				t.Fatalf("%s run %d: member %s gets %v in spec order, %v by id", a.Name(), run, m.ID, each[i], byID[m.ID])
			}
		}
	})
}

// eachRandomGroup calls check with runs random groups of both
// subscription types for each built-in assignor, and Assign's result for
// each (the random groups come from seed).
func eachRandomGroup(t *testing.T, seed uint64, runs int, check func(a Assignor, run int, typ SubscriptionType, spec GroupSpec, topics []kafka.Topic, byID map[string]kafka.Assignment)) {
	t.Helper()
	r := rand.New(rand.NewPCG(848, seed))
	for _, a := range []Assignor{Uniform(), Range()} {
		for run := range runs {
			typ := Homogeneous
			if r.IntN(2) == 0 {
				typ = Heterogeneous
			}
			spec, topics := randomGroupOf(r, typ, smallGroups)
			byID, err := a.Assign(spec, topics)
			if err != nil {
				t.Fatal(err)
			}
			check(a, run, typ, spec, topics, byID)
		}
	}
}

// partialAssignor is a custom assignor that leaves its first member out of
// the result and names a member that is not in the group.
type partialAssignor struct{}

func (partialAssignor) Name() string { return "partial" }

func (partialAssignor) Assign(spec GroupSpec, topics []kafka.Topic) (map[string]kafka.Assignment, error) {
	out := map[string]kafka.Assignment{"stranger": {"orders": {0}}}
	for _, m := range spec.Members[1:] {
		out[m.ID] = kafka.Assignment{"orders": {int32(len(out))}}
	}
	return out, nil
}

func TestAssignEachFillsInWhatACustomAssignorLeftOut(t *testing.T) {
	spec := GroupSpec{Members: []Member{{ID: "a", Topics: []string{"orders"}}, {ID: "b", Topics: []string{"orders"}}}}
	each, err := AssignEach(partialAssignor{}, spec, []kafka.Topic{{Name: "orders", Partitions: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if len(each) != 2 || each[0] == nil || len(each[0]) != 0 || !each[1].Equal(kafka.Assignment{"orders": {1}}) {
		t.Fatalf("got %v, want [map[] map[orders:[1]]]", each)
	}
}

func TestAssignRejectsAMemberListedTwice(t *testing.T) {
	spec := GroupSpec{Members: []Member{{ID: "a", Topics: []string{"orders"}}, {ID: "b"}, {ID: "a"}}}
	for _, a := range []Assignor{Uniform(), Range()} {
		_, err := a.Assign(spec, []kafka.Topic{{Name: "orders", Partitions: 4}})
		if err == nil || !strings.Contains(err.Error(), `member "a" appears twice`) {
			t.Errorf("%s: got error %v, want one naming member a", a.Name(), err)
		}
	}
}

// TestAssignGroupMatchesAssign checks GroupAssignment's view against
// Assign's: a kept member is one whose target is its Current, and Member
// gives every other its target. Assigning the result again keeps every
// member of a homogeneous uniform group that got any partitions: every
// member then holds exactly its quota, and keeps it (a group where nobody
// subscribes to an existing topic gets fresh empty targets instead).
func TestAssignGroupMatchesAssign(t *testing.T) {
	eachRandomGroup(t, 8, 300, func(a Assignor, run int, typ SubscriptionType, spec GroupSpec, topics []kafka.Topic, byID map[string]kafka.Assignment) {
		got, err := AssignGroup(a, spec, topics)
		if err != nil {
			t.Fatal(err)
		}
		if got.Len() != len(spec.Members) {
			t.Fatalf("%s run %d: %d members in the result, %d in the spec", a.Name(), run, got.Len(), len(spec.Members))
		}
		for i, m := range spec.Members {
			want := byID[m.ID]
			if got.Kept(i) {
				if !m.Current.Equal(want) {
					t.Fatalf("%s run %d: member %s kept %v, Assign gives %v", a.Name(), run, m.ID, m.Current, want)
				}
				if got.Member(i) != nil {
					t.Fatalf("%s run %d: kept member %s has a new target", a.Name(), run, m.ID)
				}
				continue
			}
			if tgt := got.Member(i); tgt == nil || !tgt.Equal(want) {
				t.Fatalf("%s run %d: member %s gets %v, Assign gives %v", a.Name(), run, m.ID, tgt, want)
			}
		}
		assigned := 0
		for _, tgt := range byID {
			assigned += tgt.Size()
		}
		if a.Name() != "uniform" || typ != Homogeneous || assigned == 0 {
			return
		}
		for i := range spec.Members {
			spec.Members[i].Current = byID[spec.Members[i].ID]
		}
		again, err := AssignGroup(a, spec, topics)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range spec.Members {
			if !again.Kept(i) {
				t.Fatalf("%s run %d: member %s does not keep %v when assigned again, gets %v", a.Name(), run, m.ID, m.Current, again.Member(i))
			}
		}
	})
}
