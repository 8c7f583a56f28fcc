package sweeps

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/sim"
)

// Shard is one slice of a sweep for a batch cluster: shard Index of Count,
// both counted from 1, holds the runs with run mod Count = Index-1. The
// zero Shard is the whole sweep (1/1).
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard reads "i/n", as in --shard 3/16.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, errI := strconv.Atoi(strings.TrimSpace(is))
	n, errN := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || errI != nil || errN != nil {
		return Shard{}, fmt.Errorf("--shard %q: write i/n, such as 3/16 (the third of 16 shards)", s)
	}
	sh := Shard{Index: i, Count: n}
	if err := sh.check(); err != nil {
		return Shard{}, fmt.Errorf("--shard %q: %w", s, err)
	}
	return sh, nil
}

func (s Shard) check() error {
	if s.Count < 1 || s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("shard %d/%d: want 1 ≤ i ≤ n (shards count from 1)", s.Index, s.Count)
	}
	return nil
}

// normal returns s with the zero value spelt 1/1.
func (s Shard) normal() Shard {
	if s == (Shard{}) {
		return Shard{Index: 1, Count: 1}
	}
	return s
}

func (s Shard) String() string {
	s = s.normal()
	return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// Whole reports whether s is the whole sweep.
func (s Shard) Whole() bool { return s.normal().Count == 1 }

// Contains reports whether run belongs to the shard.
func (s Shard) Contains(run int) bool {
	s = s.normal()
	return run%s.Count == s.Index-1
}

// Size is the number of the shard's runs among total.
func (s Shard) Size(total int) int {
	s = s.normal()
	return max(0, (total-s.Index+s.Count)/s.Count)
}

// Run is the shard's k-th run, counting from 0.
func (s Shard) Run(k int) int {
	s = s.normal()
	return s.Index - 1 + k*s.Count
}

// Runs lists the shard's runs among total, ascending.
func (s Shard) Runs(total int) []int {
	out := make([]int, s.Size(total))
	for k := range out {
		out[k] = s.Run(k)
	}
	return out
}

// Options tune Run.
type Options struct {
	// Parallel is the number of runs at once; 0 means GOMAXPROCS.
	Parallel int
	// Shard selects the runs to do; the zero value does them all.
	Shard Shard
	// Progress, when set, is called after each run with the runs done and
	// the shard's total. It is called from the workers, concurrently.
	Progress func(done, total int)
	// Models replaces the protocol models (for custom assignors); nil means
	// the built-in ones.
	Models sim.Models
}

// Row is the outcome of one run.
type Row struct {
	Run   int
	Point int
	Seed  uint64
	// Protocol is the run's protocol.
	Protocol string
	// Metrics are the values of sim.MetricNames, in that order.
	Metrics   []float64
	Converged bool
	// SafetyFindings counts the run's safety findings (double ownership);
	// Findings counts all of them.
	SafetyFindings int
	Findings       int
}

// Result is a sweep, or one shard of it: what was run and each run's row,
// by run index.
type Result struct {
	Manifest Manifest
	// Rows are sorted by Run: every run of the shard, once.
	Rows []Row
}

// Run runs the grid's runs that opts.Shard selects, opts.Parallel at a
// time, and returns their rows in run order. Each run is rebalsim.Run of
// one grid point under one protocol on one seed, without a timeline. The
// first run that fails stops the sweep; its error names the grid point,
// seed and protocol. Run returns ctx's error when ctx is cancelled.
func Run(ctx context.Context, g *Grid, opts Options) (*Result, error) {
	shard := opts.Shard.normal()
	if err := shard.check(); err != nil {
		return nil, err
	}
	n := shard.Size(g.Runs())
	workers := opts.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(n, 1))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows := make([]Row, n)
	var next, done atomic.Int64
	var mu sync.Mutex
	var firstErr error
	firstRun := -1
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				run := shard.Run(i)
				row, err := g.runOne(run, opts.Models)
				if err != nil {
					mu.Lock()
					// Of the failures seen, report the earliest run, so
					// that the message rarely depends on scheduling.
					if firstRun < 0 || run < firstRun {
						firstErr, firstRun = err, run
					}
					mu.Unlock()
					cancel()
					return
				}
				rows[i] = row
				if d := done.Add(1); opts.Progress != nil {
					opts.Progress(int(d), n)
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &Result{Manifest: NewManifest(g, shard), Rows: rows}, nil
}

// runOne runs one run. A panic in the simulator is a bug in rebalsim; it
// is returned as an error naming the run, so that it can be reproduced.
func (g *Grid) runOne(run int, models sim.Models) (row Row, err error) {
	point, seedPos, proto := g.Locate(run)
	pt := g.Points[point]
	seed := pt.Scenario.Seed + uint64(seedPos)
	protocol := g.Protocols[proto]
	where := func() string {
		return fmt.Sprintf("grid point %d (%s), seed %d, protocol %s", point, g.Label(point), seed, protocol)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: the simulator panicked (a bug in rebalsim): %v\n%s", where(), r, debug.Stack())
		}
	}()
	results, err := rebalsim.Run(pt.Scenario, rebalsim.Options{Protocols: []string{protocol}, Seed: seed, Models: models})
	if err != nil {
		return Row{}, fmt.Errorf("%s: %w", where(), err)
	}
	if len(results.Runs) != 1 {
		return Row{}, fmt.Errorf("%s: %w", where(), errors.New("rebalsim.Run returned no run"))
	}
	res := results.Runs[0]
	row = Row{Run: run, Point: point, Seed: seed, Protocol: protocol, Converged: res.Metrics.Converged, Findings: len(res.Findings)}
	for _, name := range sim.MetricNames() {
		v, _ := res.Metrics.Value(name)
		row.Metrics = append(row.Metrics, v)
	}
	for _, f := range res.Findings {
		if f.Safety {
			row.SafetyFindings++
		}
	}
	return row, nil
}
