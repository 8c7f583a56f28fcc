package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rebalsim/rebalsim/sim"
)

// Report is one scenario and its runs under one or more protocols: the
// document that result.json holds and that every output is rendered from.
type Report struct {
	// Version is the rebalsim version that produced the runs.
	Version  string       `json:"version"`
	Scenario ScenarioInfo `json:"scenario"`
	// Runs are in comparison order; tables and charts keep it.
	Runs []*sim.Result `json:"runs"`
	// TimelineSummary, when set, stands for the runs' timelines, which
	// were left out to keep the file small (see Options.Timeline).
	TimelineSummary []TimelineSummary `json:"timeline_summary,omitempty"`
}

// ScenarioInfo describes what was simulated, for readers of the report. It
// is a description, not the scenario itself: durations are seconds and
// settings are rendered strings, so that result.json stays readable and
// independent of the scenario file format.
type ScenarioInfo struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Source is the scenario file ("" if built in Go).
	Source string `json:"source,omitempty"`
	Seed   uint64 `json:"seed"`
	// KafkaVersion is the Kafka release the run follows.
	KafkaVersion string      `json:"kafka_version,omitempty"`
	Duration     float64     `json:"duration_seconds"`
	Protocols    []string    `json:"protocols"`
	Topics       []TopicInfo `json:"topics"`
	// Network describes the latency between members and the coordinator.
	Network string `json:"network,omitempty"`
	// Group holds the broker-side group coordinator settings by key.
	Group map[string]string `json:"group,omitempty"`
	// Defaults holds the consumer settings every member starts from.
	Defaults map[string]string `json:"defaults,omitempty"`
	// Members are in scenario order; that order fixes each member's colour.
	Members      []MemberInfo `json:"members"`
	Disturbances []EventInfo  `json:"disturbances"`
}

// TopicInfo is a topic at the start of the run.
type TopicInfo struct {
	Name       string `json:"name"`
	Partitions int32  `json:"partitions"`
	// Rate is the records per second produced to each partition.
	Rate float64 `json:"rate"`
}

// MemberInfo is one consumer process: when it starts and the settings that
// matter for it, by key (rendered sorted by key).
type MemberInfo struct {
	ID       string            `json:"id"`
	Start    float64           `json:"start_seconds"`
	Settings map[string]string `json:"settings,omitempty"`
}

// EventInfo is one scenario event as written in the scenario (a rolling
// restart is one event here, and one disturbance per member in the results).
type EventInfo struct {
	At      float64  `json:"at_seconds"`
	Kind    string   `json:"kind"`
	Members []string `json:"members,omitempty"`
	// For is the length of a pause, stall, partition or restart downtime.
	For float64 `json:"for_seconds,omitempty"`
	// Interval separates the restarts of a rolling restart.
	Interval float64 `json:"interval_seconds,omitempty"`
	// Detail says the rest in words (graceful, settings changed, topics).
	Detail string `json:"detail,omitempty"`
}

// WriteJSON writes r as indented JSON. The output is deterministic: struct
// fields keep their order and encoding/json sorts map keys.
func WriteJSON(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("report: no report to write")
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encoding result.json: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// ReadJSON reads a Report written by WriteJSON. Unknown keys are errors, so
// that a file that is not a rebalsim result (or a typo in a hand-edited one)
// is reported instead of silently read as empty; errors name the line and
// column.
func ReadJSON(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("report: reading result.json: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("report: empty input: expected a rebalsim result.json")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rep Report
	if err := dec.Decode(&rep); err != nil {
		return nil, jsonError(data, dec, err)
	}
	if dec.More() {
		line, col := position(data, dec.InputOffset())
		return nil, fmt.Errorf("report: line %d, column %d: unexpected data after the report object", line, col)
	}
	if rep.Version == "" && len(rep.Runs) == 0 {
		return nil, errors.New("report: not a rebalsim result.json: it has neither a version nor runs")
	}
	for i, run := range rep.Runs {
		if run == nil {
			return nil, fmt.Errorf("report: runs[%d] is null: expected a protocol run", i)
		}
	}
	if len(rep.Runs) == 0 {
		return nil, errors.New("report: the result has no runs (\"runs\" is empty or null): nothing to render")
	}
	if !readableVersion(rep.Version) {
		return nil, fmt.Errorf("report: version %q is not one this rebalsim reads: results of rebalsim 0.x (such as \"0.1.0\")", rep.Version)
	}
	return &rep, nil
}

// readableVersion reports whether a result written by rebalsim version v
// has the layout this package reads: every 0.x release (written "0.1.0",
// or "v0.1.0" with an optional pre-release suffix).
func readableVersion(v string) bool {
	v = strings.TrimPrefix(v, "v")
	v, _, _ = strings.Cut(v, "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 || parts[0] != "0" {
		return false
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 32); err != nil {
			return false
		}
	}
	return true
}

// jsonError turns an encoding/json error into a sentence with a position.
func jsonError(data []byte, dec *json.Decoder, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		line, col := position(data, syntax.Offset)
		return fmt.Errorf("report: line %d, column %d: invalid JSON: %v", line, col, syntax)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		field := typ.Field
		if field == "" {
			field = "the top level"
		}
		return fmt.Errorf("report: line %d, column %d: %s: found a JSON %s, expected %s", line, col, field, typ.Value, typ.Type)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("report: the JSON ends early: result.json is truncated")
	}
	// Unknown fields and the rest carry no offset of their own; the
	// decoder's position is just after the offending token.
	line, col := position(data, dec.InputOffset())
	return fmt.Errorf("report: line %d, column %d: %v (is this a rebalsim result.json?)", line, col, err)
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
