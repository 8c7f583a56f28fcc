package assignor_test

import (
	"fmt"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/nextgen/assignor"
)

// A third member joins a group of two that share six partitions. The uniform
// assignor keeps each old member's partitions up to its new quota of two and
// gives the newcomer only what the others had to release.
func ExampleUniform() {
	topics := []kafka.Topic{{Name: "orders", Partitions: 6}}
	spec := assignor.GroupSpec{
		Type: assignor.Homogeneous,
		Members: []assignor.Member{
			{ID: "A", Topics: []string{"orders"}, Current: kafka.Assignment{"orders": {0, 1, 2}}},
			{ID: "B", Topics: []string{"orders"}, Current: kafka.Assignment{"orders": {3, 4, 5}}},
			{ID: "C", Topics: []string{"orders"}},
		},
	}
	target, err := assignor.Uniform().Assign(spec, topics)
	if err != nil {
		panic(err)
	}
	for _, m := range spec.Members {
		fmt.Printf("%s: %v\n", m.ID, target[m.ID])
	}
	// Output:
	// A: orders[0 1]
	// B: orders[3 4]
	// C: orders[2 5]
}

// The range assignor ignores the current assignment and cuts each topic into
// contiguous blocks; the static member sorts first by its instance id.
func ExampleRange() {
	topics := []kafka.Topic{{Name: "orders", Partitions: 5}, {Name: "payments", Partitions: 3}}
	spec := assignor.GroupSpec{
		Type: assignor.Homogeneous,
		Members: []assignor.Member{
			{ID: "a-dynamic", Topics: []string{"orders", "payments"}},
			{ID: "z-static", InstanceID: "consumer-1", Topics: []string{"orders", "payments"}},
		},
	}
	target, err := assignor.Range().Assign(spec, topics)
	if err != nil {
		panic(err)
	}
	for _, m := range spec.Members {
		fmt.Printf("%s: %v\n", m.ID, target[m.ID])
	}
	// Output:
	// a-dynamic: orders[3 4] payments[2]
	// z-static: orders[0 1 2] payments[0 1]
}

// Members with different subscriptions. Topics are dealt one after the
// other to the least-loaded subscriber: clicks alternates between A and B,
// then views goes to C until C has caught up with B. Each topic ends
// balanced among its own subscribers and the loads differ by at most one.
func ExampleUniform_heterogeneous() {
	topics := []kafka.Topic{{Name: "clicks", Partitions: 4}, {Name: "views", Partitions: 4}}
	spec := assignor.GroupSpec{
		Type: assignor.Heterogeneous,
		Members: []assignor.Member{
			{ID: "A", Topics: []string{"clicks"}},
			{ID: "B", Topics: []string{"clicks", "views"}},
			{ID: "C", Topics: []string{"views"}},
		},
	}
	target, err := assignor.Uniform().Assign(spec, topics)
	if err != nil {
		panic(err)
	}
	for _, m := range spec.Members {
		fmt.Printf("%s: %v (%d)\n", m.ID, target[m.ID], target[m.ID].Size())
	}
	// Output:
	// A: clicks[0 2] (2)
	// B: clicks[1 3] views[3] (3)
	// C: views[0 1 2] (3)
}

func ExampleByName() {
	for _, name := range assignor.Names() {
		a, ok := assignor.ByName(name)
		fmt.Println(name, ok, a.Name())
	}
	_, ok := assignor.ByName("sticky")
	fmt.Println("sticky", ok)
	// Output:
	// uniform true uniform
	// range true range
	// sticky false
}
