package scenarios_test

import (
	"fmt"
	"time"

	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

func ExampleParse() {
	s, err := scenarios.Parse("scale-out.yaml", []byte(`
duration: 2m
topics:
  - {name: orders, partitions: 12}
members:
  - {count: 3, id: "c{i}"}
  - {id: c4, start: 30s}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name, s.Protocols, s.Duration)
	for _, m := range s.Members {
		fmt.Println(m.ID, m.Start)
	}
	// Output:
	// scale-out [eager cooperative nextgen] 2m0s
	// c1 0s
	// c2 0s
	// c3 0s
	// c4 30s
}

func ExampleParse_error() {
	_, err := scenarios.Parse("scale.yaml", []byte(`
duration: 2m
topics: [{name: orders, partitions: 12}]
members: [{count: 3, id: "c{i}"}]
defaults:
  sesion_timeout: 10s
events:
  - {at: 60s, crash: c4}
`))
	fmt.Println(err)
	// Output:
	// scale.yaml:6:3: unknown key "sesion_timeout" in defaults; did you mean "session_timeout"?
}

func ExampleValidate() {
	s := &sim.Scenario{
		Name:     "deploy",
		Duration: 5 * time.Minute,
		Topics:   []sim.TopicSpec{{Name: "orders", Partitions: 12}},
		Members:  []sim.MemberSpec{{ID: "c1"}, {ID: "c2"}},
		Events:   []sim.Event{{At: time.Minute, Kind: sim.EventCrash, Members: []string{"c3"}}},
	}
	fmt.Println(scenarios.Validate(s))
	// Output:
	// scenario "deploy": events[0].members[0]: crash names unknown member "c3"; did you mean "c1"?
}

func ExampleExamples() {
	for _, e := range scenarios.Examples()[:3] {
		fmt.Println(e.Name)
	}
	// Output:
	// crash
	// downgrade-consumer-to-classic
	// gc-pause
}
