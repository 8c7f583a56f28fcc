package rebalsim_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/scenarios"
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
