package rebalsim_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// TestKafkaVersionsRun: a scenario runs under Kafka 4.0 and under the
// default 4.3, every protocol converges under both, and the report's
// headline names the release. Under 4.3 the consumer protocol's target
// assignment is computed at most once a second (KIP-1263): here the
// first target after c4's join waits for the interval, so nextgen takes
// no less time to converge than under 4.0.
func TestKafkaVersionsRun(t *testing.T) {
	const body = `name: scale-out
duration: 2m
topics: [{name: orders, partitions: 12, rate: 20}]
members: [{count: 3, id: "c{i}"}, {id: c4, start: 30s}]
`
	convergence := map[string]float64{}
	for _, tc := range []struct{ header, version string }{
		{`kafka_version: "4.0"` + "\n", "4.0"},
		{"", "4.3"},
	} {
		f, err := scenarios.Parse("v.yaml", []byte(tc.header+body))
		if err != nil {
			t.Fatal(err)
		}
		res, err := rebalsim.Run(f.Scenario, rebalsim.Options{})
		if err != nil {
			t.Fatalf("Kafka %s: %v", tc.version, err)
		}
		for _, r := range res.Runs {
			if !r.Metrics.Converged {
				t.Errorf("Kafka %s, %s: not converged", tc.version, r.Protocol)
			}
			if r.Protocol == "nextgen" {
				convergence[tc.version] = r.Metrics.ConvergenceSeconds
			}
		}
		var buf bytes.Buffer
		if err := report.Table(&buf, res.Report()); err != nil {
			t.Fatal(err)
		}
		if want := "Kafka " + tc.version; !strings.Contains(buf.String(), want) {
			t.Errorf("the report does not show %q:\n%s", want, buf.String())
		}
	}
	if convergence["4.3"] < convergence["4.0"] {
		t.Errorf("nextgen converged in %.3fs under 4.3, %.3fs under 4.0; want 4.3 no faster (its assignment interval only delays)", convergence["4.3"], convergence["4.0"])
	}
}

// TestKafkaVersionInGo: a scenario built in Go that names a release gets
// that release's defaults as a file does, since the run derives them
// (sim.ResolveGroupConfigFor). The Go copy of the scale-out keeps the
// file's scenario but for its group, which it takes from
// sim.DefaultGroupConfig(); under each release its nextgen run must equal
// the file's, metric for metric. Under 4.3 that needs the 1s assignment
// interval (KIP-1263), under 4.0 none, and the two releases differ here:
// the first target after c4's join waits for the interval under 4.3, so
// convergence differs (TestKafkaVersionsRun).
func TestKafkaVersionInGo(t *testing.T) {
	const body = `name: scale-out
duration: 2m
topics: [{name: orders, partitions: 12, rate: 20}]
members: [{count: 3, id: "c{i}"}, {id: c4, start: 30s}]
protocols: [nextgen]
`
	metrics := map[string]sim.Metrics{}
	for _, version := range []string{"4.0", "4.3"} {
		f, err := scenarios.Parse("v.yaml", []byte(`kafka_version: "`+version+`"`+"\n"+body))
		if err != nil {
			t.Fatal(err)
		}
		inGo := *f.Scenario
		inGo.Source, inGo.Group = "", sim.DefaultGroupConfig()
		var got [2]sim.Metrics
		for i, sc := range []*sim.Scenario{f.Scenario, &inGo} {
			r, err := sim.Run(sc, protocols.Default(), sim.RunOptions{Protocol: "nextgen"})
			if err != nil {
				t.Fatal(err)
			}
			got[i] = r.Metrics
		}
		if got[0] != got[1] {
			t.Errorf("Kafka %s: the scenario built in Go ran %+v, the file %+v", version, got[1], got[0])
		}
		metrics[version] = got[0]
	}
	if metrics["4.0"] == metrics["4.3"] {
		t.Errorf("4.0 and 4.3 gave the same metrics; the test shows nothing")
	}
}
