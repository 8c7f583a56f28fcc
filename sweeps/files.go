package sweeps

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/internal/atomicfile"
	"github.com/rebalsim/rebalsim/report"
	"github.com/rebalsim/rebalsim/sim"
)

// ManifestFormat names the manifest schema; merge refuses others.
const ManifestFormat = "rebalsim-sweep/1"

// runOrder documents the run numbering in every manifest.
const runOrder = "run = ((point * seeds) + seed) * protocols + protocol; shard i/n holds the runs with run mod n = i-1"

// Manifest describes a sweep, or one shard of it: everything needed to
// check that shards belong together and to summarise them without the
// scenario file.
type Manifest struct {
	Format   string               `json:"format"`
	Version  string               `json:"version"`
	Scenario report.SweepScenario `json:"scenario"`
	Params   []string             `json:"params"`
	Points   []ManifestPoint      `json:"points"`
	Seeds    int                  `json:"seeds"`
	// Protocols and Metrics are in the order of runs and of runs.csv columns.
	Protocols []string `json:"protocols"`
	Metrics   []string `json:"metrics"`
	// Runs is the whole sweep's; ShardRuns the shard's.
	Runs      int      `json:"runs"`
	Order     string   `json:"order"`
	Shard     Shard    `json:"shard"`
	ShardRuns int      `json:"shard_runs"`
	Warnings  []string `json:"warnings"`
}

// ManifestPoint is one grid point: its values and first seed.
type ManifestPoint struct {
	Values    []string `json:"values"`
	FirstSeed uint64   `json:"first_seed"`
}

// NewManifest describes shard of g.
func NewManifest(g *Grid, shard Shard) Manifest {
	shard = shard.normal()
	m := Manifest{
		Format: ManifestFormat, Version: rebalsim.Version, Scenario: g.Scenario,
		Params: nonNil(g.Params), Seeds: g.Seeds, Protocols: nonNil(g.Protocols), Metrics: sim.MetricNames(),
		Runs: g.Runs(), Order: runOrder, Shard: shard, ShardRuns: shard.Size(g.Runs()), Warnings: nonNil(g.Warnings),
	}
	for _, p := range g.Points {
		m.Points = append(m.Points, ManifestPoint{Values: nonNil(p.Values), FirstSeed: p.Scenario.Seed})
	}
	m.Points = nonNil(m.Points)
	return m
}

// nonNil makes empty lists [] rather than null in JSON, so that a manifest
// read back and written again is the same bytes.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// runsHeader is the header of runs.csv:
//
//	run,point,<params...>,seed,protocol,<metrics...>,converged,safety_findings,findings
//
// A varied path named like another column is written vary.<path>.
func (m *Manifest) runsHeader() []string {
	lead := []string{"run", "point"}
	run := []string{"seed", "protocol"}
	tail := []string{"converged", "safety_findings", "findings"}
	taken := slices.Concat(lead, run, tail, m.Metrics)
	return slices.Concat(lead, report.SweepParamColumns(m.Params, taken...), run, m.Metrics, tail)
}

// WriteOptions tune Write.
type WriteOptions struct {
	// NoCharts leaves out the charts (and the charts in report.html).
	NoCharts bool
	// NoSVG writes PNG charts only.
	NoSVG bool
}

// Write writes res into dir, creating it: runs.csv and manifest.json for
// any result; for a whole sweep also stats.csv, stats.json, report.html and
// the charts. It returns the paths written. Every file is written whole or
// not at all (internal/atomicfile), and the folder's marker says whether a
// write finished and what it wrote, so that Read refuses a folder that a
// killed re-run left half replaced.
func Write(dir string, res *Result, opts WriteOptions) ([]string, error) {
	m := &res.Manifest
	if len(res.Rows) != m.ShardRuns {
		return nil, fmt.Errorf("sweep: %d rows for the %d runs of shard %s", len(res.Rows), m.ShardRuns, m.Shard)
	}
	return atomicfile.WriteFolder(dir, func(f *atomicfile.Folder) ([]string, error) { return writeFiles(dir, f, res, opts) })
}

func writeFiles(dir string, folder *atomicfile.Folder, res *Result, opts WriteOptions) ([]string, error) {
	m := &res.Manifest
	var paths []string
	write := func(name string, fill func(w io.Writer) error) error {
		if err := folder.Write(name, fill); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
		paths = append(paths, filepath.Join(dir, name))
		return nil
	}
	if err := write("runs.csv", func(w io.Writer) error { return writeRuns(w, res) }); err != nil {
		return paths, err
	}
	if err := write("manifest.json", func(w io.Writer) error { return writeJSON(w, m) }); err != nil {
		return paths, err
	}
	if !m.Shard.Whole() {
		return paths, nil
	}
	s, err := Summarize(res)
	if err != nil {
		return paths, err
	}
	if err := write("stats.csv", func(w io.Writer) error { return report.SweepStatsCSV(w, s) }); err != nil {
		return paths, err
	}
	if err := write("stats.json", func(w io.Writer) error { return report.WriteSweepJSON(w, s) }); err != nil {
		return paths, err
	}
	written, err := report.WriteSweep(dir, s, report.Options{NoCharts: opts.NoCharts, NoSVG: opts.NoSVG})
	paths = append(paths, written...)
	return paths, err
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeRuns writes runs.csv: one row per run, in run order, every value
// in full precision (report.CSVNumber), so that merge reads back exactly
// the numbers the runs produced.
func writeRuns(w io.Writer, res *Result) error {
	m := &res.Manifest
	cw := csv.NewWriter(w)
	cw.Write(m.runsHeader())
	for _, r := range res.Rows {
		rec := []string{strconv.Itoa(r.Run), strconv.Itoa(r.Point)}
		rec = append(rec, m.Points[r.Point].Values...)
		rec = append(rec, strconv.FormatUint(r.Seed, 10), r.Protocol)
		for _, v := range r.Metrics {
			rec = append(rec, report.CSVNumber(v))
		}
		rec = append(rec, strconv.FormatBool(r.Converged), strconv.Itoa(r.SafetyFindings), strconv.Itoa(r.Findings))
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// Read reads a directory that Write wrote (a shard or a whole sweep): its
// manifest and runs.csv, checked against each other. Problems name the
// file and line.
func Read(dir string) (*Result, error) {
	if err := atomicfile.CheckFolder(dir); err != nil {
		return nil, err
	}
	mpath := filepath.Join(dir, "manifest.json")
	data, err := os.ReadFile(mpath)
	if err != nil {
		return nil, fmt.Errorf("%s: not a sweep output: %w", dir, unwrapPath(err))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", mpath, err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", mpath, m.Format, ManifestFormat)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", mpath, err)
	}
	rpath := filepath.Join(dir, "runs.csv")
	f, err := os.Open(rpath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	defer f.Close()
	rows, err := readRuns(bufio.NewReader(f), &m)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", rpath, err)
	}
	return &Result{Manifest: m, Rows: rows}, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// check makes sure a manifest read from a file is consistent with itself,
// and describes no more runs than a sweep may have (Expand's bound).
func (m *Manifest) check() error {
	if err := m.Shard.check(); err != nil {
		return err
	}
	switch {
	case m.Seeds < 1 || len(m.Protocols) == 0 || len(m.Points) == 0 || len(m.Metrics) == 0:
		return errors.New("the manifest describes an empty sweep")
	case len(m.Points) > MaxRuns/m.Seeds/len(m.Protocols):
		return fmt.Errorf("%d points × %d seeds × %d protocols make more than %d runs", len(m.Points), m.Seeds, len(m.Protocols), MaxRuns)
	case m.Runs != len(m.Points)*m.Seeds*len(m.Protocols):
		return fmt.Errorf("runs is %d, but %d points × %d seeds × %d protocols make %d", m.Runs, len(m.Points), m.Seeds, len(m.Protocols), len(m.Points)*m.Seeds*len(m.Protocols))
	case m.ShardRuns != m.Shard.Size(m.Runs):
		return fmt.Errorf("shard_runs is %d, but shard %s of %d runs has %d", m.ShardRuns, m.Shard, m.Runs, m.Shard.Size(m.Runs))
	}
	for i, p := range m.Points {
		if len(p.Values) != len(m.Params) {
			return fmt.Errorf("point %d has %d values for %d params", i, len(p.Values), len(m.Params))
		}
	}
	m.Params, m.Protocols, m.Metrics, m.Warnings = nonNil(m.Params), nonNil(m.Protocols), nonNil(m.Metrics), nonNil(m.Warnings)
	return nil
}

// readRuns reads runs.csv and checks that it holds exactly the shard's
// runs, in order, each consistent with the manifest. Errors start with
// the line number.
func readRuns(r io.Reader, m *Manifest) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("1: cannot read the header: %v", err)
	}
	if want := m.runsHeader(); !slices.Equal(header, want) {
		return nil, fmt.Errorf("1: the header does not match manifest.json:\n  found %s\n  want  %s", strings.Join(header, ","), strings.Join(want, ","))
	}
	np := len(m.Params)
	nm := len(m.Metrics)
	// The rows grow as they are read rather than to the size the manifest
	// claims: a runs.csv cut short must not cost the memory of a whole one.
	size := m.Shard.Size(m.Runs)
	var rows []Row
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%d: %v", line, err)
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%d: %s", line, fmt.Sprintf(format, args...))
		}
		if len(rows) >= size {
			return nil, bad("more rows than the %d runs of shard %s", size, m.Shard)
		}
		var row Row
		if row.Run, err = strconv.Atoi(rec[0]); err != nil || row.Run != m.Shard.Run(len(rows)) {
			return nil, bad("run %s, want %d: rows must be the shard's runs in order, each once", rec[0], m.Shard.Run(len(rows)))
		}
		point, seedPos, proto := locate(row.Run, m.Seeds, len(m.Protocols))
		row.Point, row.Protocol = point, m.Protocols[proto]
		row.Seed = m.Points[point].FirstSeed + uint64(seedPos)
		if rec[1] != strconv.Itoa(point) || !slices.Equal(rec[2:2+np], m.Points[point].Values) ||
			rec[2+np] != strconv.FormatUint(row.Seed, 10) || rec[3+np] != row.Protocol {
			return nil, bad("run %d is point %d (%s), seed %d, protocol %s in manifest.json, but the row says otherwise",
				row.Run, point, pointLabel(m.Params, m.Points[point].Values), row.Seed, row.Protocol)
		}
		row.Metrics = make([]float64, nm)
		for k := range nm {
			v, err := strconv.ParseFloat(rec[4+np+k], 64)
			switch {
			case err != nil && !errors.Is(err, strconv.ErrRange):
				return nil, bad("%s: %q is not a number", m.Metrics[k], rec[4+np+k])
			case err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
				// Every metric of a run is an amount: a count or a
				// number of seconds or records, finite and not negative.
				return nil, bad("%s: %q is out of range: every metric is a finite, non-negative amount", m.Metrics[k], rec[4+np+k])
			}
			row.Metrics[k] = v
		}
		tail := rec[4+np+nm:]
		if row.Converged, err = strconv.ParseBool(tail[0]); err != nil {
			return nil, bad("converged: %q is not true or false", tail[0])
		}
		if row.SafetyFindings, err = strconv.Atoi(tail[1]); err != nil {
			return nil, bad("safety_findings: %q is not a whole number", tail[1])
		}
		if row.Findings, err = strconv.Atoi(tail[2]); err != nil {
			return nil, bad("findings: %q is not a whole number", tail[2])
		}
		rows = append(rows, row)
	}
	if len(rows) != size {
		return nil, fmt.Errorf("%d: the file ends after %d of the %d runs of shard %s (was the shard cut short?)", len(rows)+2, len(rows), size, m.Shard)
	}
	return rows, nil
}

// Merge combines shards of one sweep into the whole sweep. The shards must
// come from the same scenario bytes, grid, seeds, protocols and rebalsim
// version, and be shards 1..n of one n, each exactly once. The result is
// what Run would have returned for the whole sweep, so Write turns it into
// the same files, byte for byte.
func Merge(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("no shards to merge")
	}
	parts = slices.Clone(parts)
	slices.SortStableFunc(parts, func(a, b *Result) int { return cmp.Compare(a.Manifest.Shard.Index, b.Manifest.Shard.Index) })
	ref := parts[0].Manifest
	n := ref.Shard.Count
	seen := make([]bool, n+1)
	for _, p := range parts {
		m := p.Manifest
		if err := sameSweep(ref, m); err != nil {
			return nil, fmt.Errorf("shard %s does not belong with shard %s: %w", m.Shard, ref.Shard, err)
		}
		if m.Shard.Count != n {
			return nil, fmt.Errorf("shard %s is one of %d shards, shard %s one of %d: merge the shards of one split", m.Shard, m.Shard.Count, ref.Shard, n)
		}
		if seen[m.Shard.Index] {
			return nil, fmt.Errorf("shard %s is given twice", m.Shard)
		}
		seen[m.Shard.Index] = true
		if len(p.Rows) != m.ShardRuns {
			return nil, fmt.Errorf("shard %s has %d of its %d runs", m.Shard, len(p.Rows), m.ShardRuns)
		}
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if !seen[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shards %s are missing: every shard of the split must be merged", strings.Join(missing, ", "))
	}
	rows := make([]Row, ref.Runs)
	for _, p := range parts {
		for _, r := range p.Rows {
			if r.Run < 0 || r.Run >= ref.Runs || !p.Manifest.Shard.Contains(r.Run) {
				return nil, fmt.Errorf("shard %s holds run %d, which is not its", p.Manifest.Shard, r.Run)
			}
			rows[r.Run] = r
		}
	}
	m := ref
	m.Shard = Shard{Index: 1, Count: 1}
	m.ShardRuns = m.Runs
	return &Result{Manifest: m, Rows: rows}, nil
}

// sameSweep explains how two manifests differ in what makes them one
// sweep; the scenario's file name and the shard may differ.
func sameSweep(a, b Manifest) error {
	switch {
	case a.Version != b.Version:
		return fmt.Errorf("they were run by rebalsim %s and %s", a.Version, b.Version)
	case a.Scenario.SHA256 != b.Scenario.SHA256:
		return fmt.Errorf("their scenario files differ (sha256 %.12s… and %.12s…)", a.Scenario.SHA256, b.Scenario.SHA256)
	case !slices.Equal(a.Params, b.Params) || !reflect.DeepEqual(a.Points, b.Points):
		return errors.New("their grids differ (--vary or the sweep: block)")
	case a.Seeds != b.Seeds:
		return fmt.Errorf("they run %d and %d seeds per point", a.Seeds, b.Seeds)
	case !slices.Equal(a.Protocols, b.Protocols):
		return fmt.Errorf("they run protocols %v and %v", a.Protocols, b.Protocols)
	case !slices.Equal(a.Metrics, b.Metrics) || a.Runs != b.Runs || a.Order != b.Order || !slices.Equal(a.Warnings, b.Warnings) ||
		a.Scenario.Name != b.Scenario.Name || a.Scenario.Description != b.Scenario.Description:
		return errors.New("their manifests differ")
	}
	return nil
}
