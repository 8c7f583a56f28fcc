package check_test

import (
	"fmt"
	"os"

	"github.com/rebalsim/rebalsim/check"
	"github.com/rebalsim/rebalsim/scenarios"
)

// Check a scenario's expectations and print the compact summary, as
// `rebalsim check` does.
func ExampleCheck() {
	sc, err := scenarios.Parse("leave.yaml", []byte(`name: leave
duration: 2m
topics: [{name: orders, partitions: 12}]
members: [{count: 4, id: "c{i}"}]
events: [{at: 30s, leave: c4}]
expect:
  - {converged_within: 6s, max_max_partition_gap_seconds: 6}
  - {protocols: [cooperative, nextgen], max_moved_partitions: 3}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := check.Check([]*scenarios.File{sc}, check.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	sum.WriteText(os.Stdout, false)
	// Output:
	// rebalsim check: 1 scenario, 11 checks, 3 runs
	//   ok        leave  11 checks
	//
	// PASS: 11 passed, 0 failed, 0 undecided
}

// Load accepts files, directories and the embedded library.
func ExampleLoad() {
	scs, err := check.Load("library/graceful-leave")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(scs[0].Name, scs[0].Source)
	// Output:
	// graceful-leave library/graceful-leave.yaml
}
