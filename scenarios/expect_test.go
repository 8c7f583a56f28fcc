package scenarios

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseExpectations(t *testing.T) {
	s := mustParse(t, base+`expect:
  - {converged_within: 30s, no_double_ownership: true, no_zombie_processing: true}
  - {protocols: [nextgen], max_moved_partitions: 3, min_rebalances: 1, seeds: 20, quantile: 0.9}
  - protocols: [cooperative, nextgen]
    max_downtime_partition_seconds: {fraction_of: eager, value: 0.5}
    min_member_idle_seconds: {value: 0, fraction_of: eager}
    max_convergence_seconds: 12.5
`)
	want := []Expectation{
		{ConvergedWithin: ptr(30 * time.Second), NoDoubleOwnership: true, NoZombieProcessing: true, Line: 5},
		{Protocols: []string{"nextgen"}, Bounds: []Bound{
			{Metric: "moved_partitions", IsMax: true, Value: 3},
			{Metric: "rebalances", Value: 1},
		}, Seeds: 20, Quantile: 0.9, Line: 6},
		{Protocols: []string{"cooperative", "nextgen"}, Bounds: []Bound{
			{Metric: "downtime_partition_seconds", IsMax: true, Value: 0.5, FractionOf: "eager"},
			{Metric: "member_idle_seconds", Value: 0, FractionOf: "eager"},
			{Metric: "convergence_seconds", IsMax: true, Value: 12.5},
		}, Line: 7},
	}
	if !reflect.DeepEqual(s.Expect, want) {
		t.Errorf("Expect:\n got %+v\nwant %+v", s.Expect, want)
	}
	if err := ValidateFile(s); err != nil {
		t.Errorf("Validate of a parsed scenario: %v", err)
	}
}

// TestRejectExpectationExtensions covers seeds:, quantile: and comparisons
// between protocols; TestRejectExpectations covers the rest of expect:.
func TestRejectExpectationExtensions(t *testing.T) {
	checkRejections(t, []rejection{
		{"quantile zero", base + "expect:\n  - {seeds: 10, quantile: 0, max_rebalances: 3}\n", "t.yaml:5:27",
			[]string{"quantile is the fraction of seeds on which the expectation must hold: more than 0 and at most 1, found 0"}},
		{"quantile above one", base + "expect:\n  - {seeds: 10, quantile: 90, max_rebalances: 3}\n", "t.yaml:5:27",
			[]string{"more than 0 and at most 1, found 90"}},
		{"quantile as a percentage string", base + "expect:\n  - {quantile: 90%, max_rebalances: 3}\n", "t.yaml:5:16",
			[]string{"quantile must be a number", `"90%"`}},
		{"seeds zero", base + "expect:\n  - {seeds: 0, max_rebalances: 3}\n", "t.yaml:5:13",
			[]string{"seeds must be a whole number from 1 to 10,000, found 0"}},
		{"seeds too many", base + "expect:\n  - {seeds: 1000000, max_rebalances: 3}\n", "t.yaml:5:13",
			[]string{"from 1 to 10,000"}},
		{"seeds misspelt", base + "expect:\n  - {seed: 5, max_rebalances: 3}\n", "t.yaml:5:6",
			[]string{`unknown key "seed" in expectation; did you mean "seeds"?`}},
		{"unknown metric in a comparison", base + "expect:\n  - {protocols: [nextgen], max_downtime_partition_second: {fraction_of: eager, value: 0.5}}\n", "t.yaml:5:28",
			[]string{`unknown key "max_downtime_partition_second" in expectation; did you mean "max_downtime_partition_seconds"?`}},
		{"comparison key misspelt", base + "expect:\n  - {protocols: [nextgen], max_rebalances: {fraction_off: eager, value: 0.5}}\n", "t.yaml:5:45",
			[]string{`unknown key "fraction_off" in max_rebalances; did you mean "fraction_of"?`}},
		{"comparison without value", base + "expect:\n  - {protocols: [nextgen], max_rebalances: {fraction_of: eager}}\n", "t.yaml:5:44",
			[]string{"max_rebalances compares with another protocol and needs both fraction_of: and value:", "value: is missing"}},
		{"comparison with an unknown protocol", base + "expect:\n  - {protocols: [nextgen], max_rebalances: {fraction_of: egaer, value: 0.5}}\n", "t.yaml:5:58",
			[]string{`unknown protocol "egaer"; did you mean "eager"?`}},
		{"comparison with a protocol not run", base + "protocols: [cooperative, nextgen]\nexpect:\n  - {protocols: [nextgen], max_rebalances: {fraction_of: eager, value: 0.5}}\n", "t.yaml:6:58",
			[]string{"max_rebalances compares with eager, which is not among the scenario's protocols (cooperative, nextgen)"}},
		{"comparison for every protocol", base + "expect:\n  - {max_rebalances: {fraction_of: eager, value: 0.5}}\n", "t.yaml:5:22",
			[]string{"max_rebalances compares with eager's run; add protocols: naming the runs it applies to, such as [cooperative, nextgen]"}},
		{"comparison with itself", base + "expect:\n  - {protocols: [eager, nextgen], max_rebalances: {fraction_of: eager, value: 0.5}}\n", "t.yaml:5:65",
			[]string{"max_rebalances compares eager with itself"}},
		{"negative factor", base + "expect:\n  - {protocols: [nextgen], max_rebalances: {fraction_of: eager, value: -1}}\n", "t.yaml:5:72",
			[]string{"the value of max_rebalances is a non-negative factor, found -1"}},
		{"bound is a list", base + "expect:\n  - {max_rebalances: [1, 2]}\n", "t.yaml:5:22",
			[]string{"max_rebalances must be a number, or a comparison such as {fraction_of: eager, value: 0.5}, found a list"}},
	})
}

func TestValidateExpectationExtensions(t *testing.T) {
	good := func() *File { return mustParse(t, base) }
	cases := []struct {
		name string
		x    Expectation
		want string
	}{
		{"negative seeds", Expectation{Seeds: -1, NoDoubleOwnership: true}, "expect[0].seeds: seeds must be a whole number from 1 to 10,000, found -1"},
		{"quantile above one", Expectation{Quantile: 2, NoDoubleOwnership: true}, "expect[0].quantile: quantile is the fraction of seeds"},
		{"comparison with an unknown protocol", Expectation{Protocols: []string{"nextgen"},
			Bounds: []Bound{{Metric: "rebalances", IsMax: true, Value: 1, FractionOf: "kraft"}}},
			`expect[0].max_rebalances.fraction_of: unknown protocol "kraft"`},
	}
	for _, tc := range cases {
		s := good()
		s.Source = ""
		s.Expect = []Expectation{tc.x}
		err := ValidateFile(s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate = %v; want %q", tc.name, err, tc.want)
		}
	}
	// Zero seeds and quantile are the defaults (1 seed, every seed).
	s := good()
	s.Expect = []Expectation{{NoDoubleOwnership: true}}
	if err := ValidateFile(s); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestLibrary checks the scenario library's promises: every scenario loads,
// is named after its file, tells its situation, and encodes the known
// behaviour as expectations, including a liveness bound for every protocol
// it runs.
func TestLibrary(t *testing.T) {
	names := LibraryNames()
	if len(names) < 12 {
		t.Fatalf("the library has %d scenarios: %v", len(names), names)
	}
	examples := exampleNames()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			s, err := LibraryScenario(name)
			if err != nil {
				t.Fatalf("does not load:\n%v", err)
			}
			if s.Name != name || s.Source != "library/"+name+".yaml" {
				t.Errorf("name %q, source %q; want the file's name", s.Name, s.Source)
			}
			if slices.Contains(examples, name) {
				t.Errorf("%s is also an example's name; names must be unique across what `check scenarios/` loads", name)
			}
			if len(s.Description) < 200 {
				t.Errorf("description %q is too short to tell the real-world situation", s.Description)
			}
			for _, p := range s.Protocols {
				live := false
				for _, x := range s.Expect {
					live = live || (x.ConvergedWithin != nil && (len(x.Protocols) == 0 || slices.Contains(x.Protocols, p)))
				}
				if !live {
					t.Errorf("no converged_within covers %s: every library scenario checks liveness", p)
				}
			}
		})
	}
	infos := Library()
	if len(infos) != len(names) || infos[0].Description == "" {
		t.Errorf("Library() = %d entries; want %d, described", len(infos), len(names))
	}
	if _, err := LibraryScenario("crash-without-leaf"); err == nil || !strings.Contains(err.Error(), `did you mean "crash-without-leave"?`) {
		t.Errorf("LibraryScenario(crash-without-leaf) = %v; want a suggestion", err)
	}
}
