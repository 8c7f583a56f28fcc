package conformance_test

import (
	"fmt"

	"github.com/rebalsim/rebalsim/conformance"
)

func ExampleParse() {
	f, err := conformance.Parse("example.yaml", []byte(`
vectors:
- name: range_two_consumers
  kind: client_assignor
  assignor: range
  input:
    topics: {orders: 3}
    members:
      - {id: c1, subscription: [orders]}
      - {id: c2, subscription: [orders]}
  expected:
    assignment: {c1: {orders: [0, 1]}, c2: {orders: [2]}}
    properties: [valid, balanced]
- name: range_wrong
  kind: client_assignor
  assignor: range
  input:
    topics: {orders: 3}
    members:
      - {id: c1, subscription: [orders]}
      - {id: c2, subscription: [orders]}
  expected:
    assignment: {c1: {orders: [0]}, c2: {orders: [1, 2]}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range f.Run(conformance.Options{}) {
		fmt.Println(o)
	}
	// Output:
	// PASS range_two_consumers[range]: checked assignment, valid, balanced
	// FAIL range_wrong[range]: assignment:
	//   c1: expected {orders[0]}, got {orders[0 1]} (extra {orders[1]})
	//   c2: expected {orders[1 2]}, got {orders[2]} (missing {orders[1]})
}
