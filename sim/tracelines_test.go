package sim_test

import (
	"bufio"
	"encoding/json"
	"io"
	"testing"

	"github.com/rebalsim/rebalsim/sim"
)

// traceRecords reads a run's JSONL trace.
func traceRecords(t *testing.T, r io.Reader) []sim.TraceRecord {
	t.Helper()
	var out []sim.TraceRecord
	lines := bufio.NewScanner(r)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var rec sim.TraceRecord
		if err := json.Unmarshal(lines.Bytes(), &rec); err != nil {
			t.Fatalf("trace line %q: %v", lines.Text(), err)
		}
		out = append(out, rec)
	}
	if err := lines.Err(); err != nil {
		t.Fatalf("reading the trace: %v", err)
	}
	return out
}
