package swarm

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/rebalsim/rebalsim/internal/atomicfile"
	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/sim"
	"github.com/rebalsim/rebalsim/sweeps"
)

// Options tune Run.
type Options struct {
	// From is the first swarm seed (0 means 1); Seeds how many, From up.
	From  uint64
	Seeds int
	// Parallel is how many seeds run at once (0 means 1). Each seed's
	// runs are single-threaded; the report does not depend on it.
	Parallel int
	// Shard runs only the seeds of one slice, like sweep's --shard: the
	// k-th seed of the range belongs to shard k mod n.
	Shard sweeps.Shard
	// Models replaces the protocol models (nil: the built-in ones), to
	// swarm custom assignors or models registered through the Go API.
	Models sim.Models
	// Corpus, when set, is the directory each defect's shrunk reproducer
	// is written to, as <class>-<protocol>-seed<N>.yaml.
	Corpus string
	// ShrinkRuns bounds the candidates tried per defect (0 means 300).
	ShrinkRuns int
	// ShrinkKnown shrinks known defects too; without it they are listed
	// unshrunk (their reproducers are on record), which keeps a CI swarm
	// fast.
	ShrinkKnown bool
	// Progress, when set, is called after each seed with the seeds done.
	Progress func(done, total int)
}

// Report is what a swarm found, seed by seed in seed order.
type Report struct {
	// Seeds counts the seeds run (this shard's).
	Seeds int
	// Defects are failures that are not documented hazards: each fails
	// the swarm and comes with its shrunk reproducer.
	Defects []Found
	// Hazards are failures Classify recognised as documented Kafka
	// hazards: reported, never counted as defects.
	Hazards []Found
	// Known are the defects among Defects that KnownDefect recognised.
	Known int
}

// Found is one failure of one seed.
type Found struct {
	Seed uint64
	Failure
	// Members and Events size the generated scenario; Shrunk is the
	// reproducer (defects only) and File where it was written.
	Members, Events int
	Shrunk          []byte
	File            string
}

// Run generates, runs and judges the scenarios of seeds From..From+Seeds-1
// (those of opts.Shard), shrinks every defect and writes it to the corpus.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Seeds < 1 {
		return nil, fmt.Errorf("seeds must be at least 1, found %d", opts.Seeds)
	}
	if opts.From == 0 {
		opts.From = 1
	}
	if opts.Models == nil {
		opts.Models = protocols.Default()
	}
	if opts.ShrinkRuns == 0 {
		opts.ShrinkRuns = 300
	}
	var seeds []uint64
	for k := range opts.Seeds {
		if opts.Shard.Contains(k) {
			seeds = append(seeds, opts.From+uint64(k))
		}
	}
	found := make([][]Found, len(seeds))
	errs := make([]error, len(seeds))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range max(opts.Parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				found[i], errs[i] = runSeed(seeds[i], opts)
				if opts.Progress != nil {
					mu.Lock()
					done++
					opts.Progress(done, len(seeds))
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for i := range seeds {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep := &Report{Seeds: len(seeds)}
	for i := range seeds {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, f := range found[i] {
			if f.Hazard != "" {
				rep.Hazards = append(rep.Hazards, f)
			} else {
				rep.Defects = append(rep.Defects, f)
				if f.Known != "" {
					rep.Known++
				}
			}
		}
	}
	return rep, nil
}

// runSeed judges one seed's scenario and shrinks the first defect of
// each class and protocol.
func runSeed(seed uint64, opts Options) ([]Found, error) {
	s := Generate(seed)
	f, err := Build(s)
	if err != nil {
		return []Found{{Seed: seed, Failure: Failure{Class: Invalid, Detail: "the generated scenario does not load: " + err.Error()},
			Members: len(s.Members), Events: len(s.Events)}}, nil
	}
	var out []Found
	seen := map[[4]string]bool{}
	for _, fl := range Judge(s, f, opts.Models) {
		key := [4]string{string(fl.Class), fl.Key, fl.Protocol, fl.Hazard}
		if seen[key] {
			continue
		}
		seen[key] = true
		fd := Found{Seed: seed, Failure: fl, Members: len(s.Members), Events: len(s.Events)}
		if fl.Hazard == "" && fl.Class != Invalid && (fl.Known == "" || opts.ShrinkKnown) {
			small := Shrink(s, fl, opts.Models, opts.ShrinkRuns)
			small.Description = fmt.Sprintf("found by rebalsim swarm, seed %d, and shrunk: %s", seed, fl)
			sf, err := Build(small)
			if err != nil {
				return nil, fmt.Errorf("seed %d: the shrunk scenario does not load: %w", seed, err)
			}
			fd.Shrunk = sf.YAML
			if opts.Corpus != "" {
				fd.File = filepath.Join(opts.Corpus, fmt.Sprintf("%s-%s-seed%d.yaml", fl.Class, fl.Protocol, seed))
				if err := os.MkdirAll(opts.Corpus, 0o755); err != nil {
					return nil, err
				}
				if err := atomicfile.Write(fd.File, func(w io.Writer) error { _, err := w.Write(fd.Shrunk); return err }); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, fd)
	}
	return out, nil
}
