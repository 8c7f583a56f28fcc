package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

// wantExamples are the examples the library promises (DESIGN.md, the
// README and the CLI's `examples` command refer to them by name).
var wantExamples = []string{
	"crash",
	"downgrade-consumer-to-classic",
	"gc-pause",
	"migrate-classic-to-consumer",
	"migrate-cooperative-to-consumer",
	"partition-growth",
	"rolling-restart",
	"scale-out",
	"slow-consumer",
	"upgrade-eager-to-cooperative",
	"upgrade-one-bounce-mistake",
}

// TestExamplesLoad fails when any embedded example does not load.
func TestExamplesLoad(t *testing.T) {
	names := exampleNames()
	for _, want := range wantExamples {
		if !slices.Contains(names, want) {
			t.Errorf("example %s is missing", want)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			s, err := Example(name)
			if err != nil {
				t.Fatalf("example does not load:\n%v", err)
			}
			if s.Name != name {
				t.Errorf("name: %q in examples/%s.yaml; want the file's name", s.Name, name)
			}
			if len(s.Description) < 80 {
				t.Errorf("description %q is too short to tell the situation", s.Description)
			}
			if s.Source != "examples/"+name+".yaml" {
				t.Errorf("Source = %q", s.Source)
			}
			disturbed := len(s.Events) > 0
			for _, m := range s.Members {
				disturbed = disturbed || m.Start > 0
			}
			if !disturbed {
				t.Error("the example has no disturbance: no event and no late member")
			}
		})
	}
}

func TestExamplesList(t *testing.T) {
	infos := Examples()
	var names []string
	for _, info := range infos {
		names = append(names, info.Name)
		if info.Description == "" {
			t.Errorf("example %s has no description", info.Name)
		}
	}
	if !slices.IsSorted(names) || len(names) != len(exampleNames()) {
		t.Errorf("Examples() names = %v; want every example, sorted", names)
	}
}

func TestExampleSource(t *testing.T) {
	src, err := ExampleSource("crash")
	if err != nil || !strings.HasPrefix(string(src), "name: crash\n") {
		t.Errorf("ExampleSource(crash) = %.40q, %v", src, err)
	}
	if _, err := ExampleSource("chrash"); err == nil || !strings.Contains(err.Error(), `did you mean "crash"?`) {
		t.Errorf("ExampleSource(chrash) = %v; want a suggestion", err)
	}
	if _, err := Example("nope"); err == nil || !strings.Contains(err.Error(), "examples: crash, ") {
		t.Errorf("Example(nope) = %v; want the list of examples", err)
	}
}

// TestExampleFacts pins the facts the descriptions state, so that an edit
// of a file cannot quietly contradict its story.
func TestExampleFacts(t *testing.T) {
	load := func(name string) *File {
		s, err := Example(name)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := load("scale-out"); len(s.Members) != 4 || s.Members[3].Start.Seconds() != 30 || s.Topics[0].Partitions != 12 {
		t.Errorf("scale-out: %d members, c4 at %v, %d partitions", len(s.Members), s.Members[3].Start, s.Topics[0].Partitions)
	}
	if s := load("gc-pause"); s.Events[0].For.Seconds() >= 45 || s.Events[1].For.Seconds() <= 45 {
		t.Errorf("gc-pause: want one pause shorter and one longer than the 45s session timeout, got %v and %v", s.Events[0].For, s.Events[1].For)
	}
	if s := load("slow-consumer"); s.Events[0].Kind != sim.EventStall || s.Events[0].For.Minutes() <= 5 {
		t.Errorf("slow-consumer: want a stall past the 5m max.poll.interval, got %v %v", s.Events[0].Kind, s.Events[0].For)
	}
	s := load("rolling-restart")
	var static []string
	for _, m := range s.Members {
		if m.Settings.Static != nil && *m.Settings.Static {
			static = append(static, m.ID)
		}
	}
	if !slices.Equal(static, []string{"c4", "c5", "c6"}) || len(s.Events[0].Members) != 6 {
		t.Errorf("rolling-restart: static members %v, restart of %d", static, len(s.Events[0].Members))
	}
	if s := load("upgrade-eager-to-cooperative"); len(s.Events) != 2 ||
		!slices.Equal(*s.Events[0].Set.Assignors, []string{"cooperative-sticky", "range"}) ||
		!slices.Equal(*s.Events[1].Set.Assignors, []string{"cooperative-sticky"}) {
		t.Errorf("upgrade-eager-to-cooperative: want two bounces, both assignors then cooperative-sticky alone")
	}
	if s := load("upgrade-one-bounce-mistake"); len(s.Events) != 1 || !slices.Equal(*s.Events[0].Set.Assignors, []string{"cooperative-sticky"}) {
		t.Errorf("upgrade-one-bounce-mistake: want a single bounce to cooperative-sticky")
	}
	for _, m := range []struct{ name, from string }{
		{"migrate-classic-to-consumer", "eager"},
		{"migrate-cooperative-to-consumer", "cooperative"},
	} {
		name, from := m.name, m.from
		s := load(name)
		if *s.Defaults.Protocol != from || *s.Events[0].Set.GroupProtocol != "consumer" {
			t.Errorf("%s: want members on %s moved to group_protocol consumer", name, from)
		}
	}
	if s := load("downgrade-consumer-to-classic"); *s.Defaults.Protocol != "nextgen" || *s.Events[0].Set.GroupProtocol != "classic" {
		t.Errorf("downgrade-consumer-to-classic: want members on the consumer protocol moved to classic")
	}
}
