package assignor_test

import (
	"fmt"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic/assignor"
)

// The 12-partition lab: c1, c2 and c3 own four partitions each and c4
// joins. cooperative-sticky moves the minimum, three partitions, and does
// it in two rebalances: the first takes them away from their owners
// without giving them to c4, the follow-up hands them over.
func ExampleCooperativeSticky() {
	topics := []kafka.Topic{{Name: "orders", Partitions: 12}}
	sub := []string{"orders"}
	group := []assignor.Subscription{
		{MemberID: "c1", Topics: sub, Owned: kafka.Assignment{"orders": {0, 1, 2, 3}}, Generation: 1, HasGeneration: true},
		{MemberID: "c2", Topics: sub, Owned: kafka.Assignment{"orders": {4, 5, 6, 7}}, Generation: 1, HasGeneration: true},
		{MemberID: "c3", Topics: sub, Owned: kafka.Assignment{"orders": {8, 9, 10, 11}}, Generation: 1, HasGeneration: true},
		{MemberID: "c4", Topics: sub},
	}
	a := assignor.CooperativeSticky()
	first := a.Assign(assignor.Input{Topics: topics, Members: group})
	for _, m := range group {
		fmt.Printf("round 1 %s: {%v}\n", m.MemberID, first.Assignment[m.MemberID])
	}

	// Every member rejoins owning what it was given, in generation 2.
	for i := range group {
		group[i].Owned = first.Assignment[group[i].MemberID]
		group[i].Generation, group[i].HasGeneration = 2, true
	}
	second := a.Assign(assignor.Input{Topics: topics, Members: group})
	fmt.Printf("round 2 c4: {%v}\n", second.Assignment["c4"])
	// Output:
	// round 1 c1: {orders[0 1 2]}
	// round 1 c2: {orders[4 5 6]}
	// round 1 c3: {orders[8 9 10]}
	// round 1 c4: {}
	// round 2 c4: {orders[3 7 11]}
}

func ExampleByName() {
	for _, name := range assignor.Names() {
		a, _ := assignor.ByName(name)
		fmt.Println(name, a.Protocols())
	}
	// Output:
	// range [EAGER]
	// roundrobin [EAGER]
	// sticky [EAGER]
	// cooperative-sticky [COOPERATIVE EAGER]
}
