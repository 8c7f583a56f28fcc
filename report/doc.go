// Package report turns simulation results into what people read: terminal
// tables, Markdown for pull requests, CSV, JSON, charts and one
// self-contained HTML page. It never simulates; everything it shows comes
// from a Report, which is exactly what result.json holds, so any output can
// be rebuilt later from a saved result.json, byte for byte.
//
// A minimal use, after running a scenario under each protocol (a
// rebalsim.Results builds this document with its Report method):
//
//	r := &report.Report{
//		Version:  "v0.1.0",
//		Scenario: report.NewScenarioInfo(sc), // or filled in by hand
//		Runs:     results,                    // one *sim.Result per protocol
//	}
//	report.Table(os.Stdout, r)                        // compare at a glance
//	files, err := report.WriteAll("out", r, report.Options{})
//
// WriteAll writes result.json, timeline.csv, the charts (PNG and SVG) and
// report.html into a directory; every file is written to a temporary file
// beside it and renamed, so a reader never sees half a file.
//
// The caller's duties, in order:
//
//  1. Fill Report.Version with the rebalsim version: together with the
//     scenario and seed it is what makes a result reproducible.
//  2. Describe the scenario (NewScenarioInfo does it from a sim.Scenario;
//     callers that know each member's resolved configuration may replace
//     MemberInfo.Settings with it).
//  3. Pass the runs in the order they should be compared (eager,
//     cooperative, nextgen is the convention); every table and chart keeps it.
//
// How to read the outputs:
//
//   - Every metric of sim.MetricTable is a cost: lower is better (its
//     Better column says so, and a test holds it). Tables mark
//     the best value of each row (with * in the terminal, bold in Markdown
//     and HTML) and mark nothing when every run has the same value. A run
//     that never converged shows "never" for convergence_seconds and is
//     never the best there.
//   - Colours are stable: a protocol always has the same colour and line
//     dash, and a member always has the colour of its position in the
//     scenario's member list, in every chart. Colours also differ in
//     lightness, and states that share a colour differ in hatching, so the
//     charts survive a greyscale printer.
//   - Charts that cannot show every partition or member (hundreds of rows)
//     sample rows evenly and say so in their subtitle.
//
// Determinism: nothing here reads the clock or iterates a map into output,
// and gonum/plot's PNG and SVG renderers are deterministic for a given
// input, so the same Report always gives the same bytes.
package report
