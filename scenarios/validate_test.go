package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// goScenario is a valid scenario built in Go, leaving every field that sim
// documents as defaulted at zero.
func goScenario() *sim.Scenario {
	return &sim.Scenario{
		Name:     "go",
		Duration: 2 * time.Minute,
		Topics:   []sim.TopicSpec{{Name: "orders", Partitions: 12}},
		Members:  []sim.MemberSpec{{ID: "c1"}, {ID: "c2"}, {ID: "c3", Start: 30 * time.Second}},
		Events: []sim.Event{
			{At: time.Minute, Kind: sim.EventCrash, Members: []string{"c2"}},
			{At: 90 * time.Second, Kind: sim.EventPause, Members: []string{"c1"}, For: 5 * time.Second},
		},
	}
}

func TestValidateAcceptsDefaultsLeftZero(t *testing.T) {
	if err := Validate(goScenario()); err != nil {
		t.Errorf("Validate(zero defaults) = %v", err)
	}
}

// TestValidateAgreesWithParse checks that what Parse returns passes
// Validate: the two apply one set of rules.
func TestValidateAgreesWithParse(t *testing.T) {
	for _, info := range Examples() {
		s, err := Example(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateFile(s); err != nil {
			t.Errorf("Validate(example %s) = %v", info.Name, err)
		}
	}
	if err := ValidateFile(mustParse(t, designScenario)); err != nil {
		t.Errorf("Validate(DESIGN.md example) = %v", err)
	}
}

func TestValidateRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(s *File)
		want   string
	}{
		{"nothing to name it", func(s *File) { s.Name = "" },
			`scenario: name: the scenario has no name; add name:`},
		{"zero horizon", func(s *File) { s.Duration = 0; s.Events = nil; s.Members[2].Start = 0 },
			`scenario "go": duration: duration must be positive, found 0s`},
		{"unknown protocol", func(s *File) { s.Protocols = []string{"eager", "coperative"} },
			`scenario "go": protocols[1]: unknown protocol "coperative"; did you mean "cooperative"?`},
		{"no topics", func(s *File) { s.Topics = nil; s.Events = s.Events[:1] },
			`scenario "go": topics: the scenario has no topics`},
		{"zero partitions", func(s *File) { s.Topics[0].Partitions = 0 },
			`scenario "go": topics[0].partitions: partitions must be at least 1, found 0`},
		{"too many partitions", func(s *File) {
			s.Topics = append(s.Topics, sim.TopicSpec{Name: "big", Partitions: MaxPartitions})
		}, `scenario "go": topics: the topics have 2,000,012 partitions in total; the limit is 2,000,000`},
		{"latency without kind", func(s *File) { s.Network.Latency.Value = time.Millisecond },
			`scenario "go": network.latency: latency has parameters but no kind`},
		{"unknown latency kind", func(s *File) { s.Network.Latency.Kind = "pareto" },
			`scenario "go": network.latency: unknown latency dist "pareto"`},
		{"negative group timeout", func(s *File) { s.Group.SessionTimeout = -time.Second },
			`scenario "go": group.session_timeout: group.session_timeout must be positive, found -1s`},
		{"group heartbeat above the default session", func(s *File) { s.Group.HeartbeatInterval = time.Minute },
			`scenario "go": group.heartbeat_interval: group.heartbeat_interval 1m must be less than group.session_timeout 45s`},
		{"unknown server assignor", func(s *File) { s.Group.Assignor = "sticky" },
			`scenario "go": group.assignor: group.assignor "sticky" is a client assignor`},
		{"defaults", func(s *File) { s.Defaults.MaxPollRecords = ptr(0) },
			`scenario "go": defaults.max_poll_records: max_poll_records must be a whole number from 1 to 2,147,483,647, found 0`},
		{"member settings", func(s *File) { s.Members[1].Settings.Assignors = ptr([]string{"rnage"}) },
			`scenario "go": members[1].assignors[0]: unknown assignor "rnage" in assignors; did you mean "range"?`},
		{"member timeouts", func(s *File) { s.Members[0].Settings.SessionTimeout = ptr(time.Second) },
			`scenario "go": members[0].session_timeout: heartbeat_interval 3s (Kafka's default) must be less than session_timeout 1s`},
		{"subscription", func(s *File) { s.Members[0].Settings.Subscription = ptr([]string{"ordrs"}) },
			`scenario "go": members[0].subscription[0]: subscription names unknown topic "ordrs"; did you mean "orders"?`},
		{"no members", func(s *File) { s.Members = nil; s.Events = nil },
			`scenario "go": members: the scenario has no members`},
		{"duplicate member", func(s *File) { s.Members[2].ID = "c1" },
			`scenario "go": members[2].id: member id "c1" is declared twice (first as members[0])`},
		{"member all", func(s *File) { s.Members[2].ID = "all" },
			`scenario "go": members[2].id: all is reserved`},
		{"member starts late", func(s *File) { s.Members[2].Start = 2 * time.Minute },
			`scenario "go": members[2].start: start 2m is at or after the 2m horizon`},
		{"unsorted events", func(s *File) { s.Events[0].At = 100 * time.Second },
			`scenario "go": events[1].at: events must be sorted by time: events[1] at 1m30s comes after events[0] at 1m40s`},
		{"event at the horizon", func(s *File) { s.Events[1].At = 2 * time.Minute },
			`scenario "go": events[1].at: pause at 2m is at or after the 2m horizon`},
		{"unknown event kind", func(s *File) { s.Events[0].Kind = "explode" },
			`scenario "go": events[0]: unknown event kind "explode"`},
		{"unresolved all", func(s *File) { s.Events[0].Members = []string{"all"} },
			`scenario "go": events[0].members[0]: all must be resolved to the member ids`},
		{"unknown member", func(s *File) { s.Events[0].Members = []string{"c9"} },
			`scenario "go": events[0].members[0]: crash names unknown member "c9"; did you mean "c1"?`},
		{"no members named", func(s *File) { s.Events[0].Members = nil },
			`scenario "go": events[0].members: crash names no members`},
		{"pause for zero", func(s *File) { s.Events[1].For = 0 },
			`scenario "go": events[1].for: for must be positive, found 0s`},
		{"restart patch", func(s *File) {
			s.Events[1] = sim.Event{At: 90 * time.Second, Kind: sim.EventRestart, Members: []string{"c1"},
				Set: sim.ConsumerSettings{HeartbeatInterval: ptr(time.Hour)}}
		}, `scenario "go": events[1].set.heartbeat_interval: heartbeat_interval 1h must be less than session_timeout 45s (Kafka's default) for member c1`},
		{"partitions shrink", func(s *File) {
			s.Events[1] = sim.Event{At: 90 * time.Second, Kind: sim.EventAddPartitions, Topic: "orders", Partitions: 6}
		}, `scenario "go": events[1].partitions: add_partitions must grow topic orders`},
		{"expectation of a protocol not run", func(s *File) {
			s.Protocols = []string{"eager"}
			s.Expect = []Expectation{{Protocols: []string{"nextgen"}, NoDoubleOwnership: true}}
		}, `scenario "go": expect[0].protocols[0]: protocol nextgen is not among the scenario's protocols (eager)`},
		{"unknown metric", func(s *File) {
			s.Expect = []Expectation{{Bounds: []Bound{{Metric: "moved_partition", IsMax: true, Value: 3}}}}
		}, `scenario "go": expect[0].max_moved_partition: unknown metric "moved_partition"; did you mean "moved_partitions"?`},
		{"expectation checks nothing", func(s *File) { s.Expect = []Expectation{{}} },
			`scenario "go": expect[0]: the expectation checks nothing`},
		{"source names the file", func(s *File) { s.Source = "deploy.yaml"; s.Topics[0].Rate = -1 },
			`deploy.yaml: topics[0].rate: rate must be a non-negative number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &File{Scenario: goScenario()}
			tc.change(s)
			err := ValidateFile(s)
			if err == nil {
				t.Fatalf("Validate accepted the scenario; want %q", tc.want)
			}
			if first, _, _ := strings.Cut(err.Error(), "\n"); !strings.HasPrefix(first, tc.want) {
				t.Errorf("Validate =\n %v\nwant it to start with\n %s", err, tc.want)
			}
		})
	}
}

func TestValidateLimits(t *testing.T) {
	s := goScenario()
	for i := range MaxMembers {
		s.Members = append(s.Members, sim.MemberSpec{ID: "m" + grouped(i)})
	}
	if err := Validate(s); err == nil || !strings.Contains(err.Error(), "the scenario declares 100,003 members; the limit is 100,000") {
		t.Errorf("Validate(too many members) = %v", err)
	}
	s = goScenario()
	all := make([]string, 0, MaxEventActions)
	for range MaxEventActions {
		all = append(all, "c1")
	}
	s.Events = append(s.Events, sim.Event{At: 100 * time.Second, Kind: sim.EventRollingRestart, Members: all})
	if err := Validate(s); err == nil || !strings.Contains(err.Error(), "the events act on 100,002 members in total; the limit is 100,000") {
		t.Errorf("Validate(too many event actions) = %v", err)
	}
}

func TestValidateNil(t *testing.T) {
	if err := Validate(nil); err == nil {
		t.Error("Validate(nil) = nil")
	}
}

// TestValidateDoesNotChangeTheScenario guards the promise that Validate
// only reads.
func TestValidateDoesNotChangeTheScenario(t *testing.T) {
	s := goScenario()
	before := *s
	_ = Validate(s)
	if s.Group != before.Group || s.Network != before.Network || len(s.Protocols) != 0 {
		t.Errorf("Validate changed the scenario: %+v", s)
	}
}
