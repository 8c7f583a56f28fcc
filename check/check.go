package check

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/rebalsim/rebalsim"
	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// Options tune Check.
type Options struct {
	// Seeds, when positive, checks every expectation on this many seeds
	// (the scenario's seed and the ones after it) instead of the seeds:
	// the expectation states.
	Seeds int
	// ShuffleTies runs every scenario and seed a second time with
	// simultaneous events in a random order (drawn from the seed) and adds,
	// per protocol, a tie-order case that fails when a safety or
	// convergence verdict differs between the two orders.
	ShuffleTies bool
	// CorpusDir holds failing seeds, one file per scenario (see
	// CorpusFile); "" neither reads nor writes a corpus.
	CorpusDir string
	// Protocols, when set, limits the cases to these protocols; a
	// scenario that runs none of them is skipped. Protocols that a
	// comparison refers to (fraction_of) are still run.
	Protocols []string
	// Parallel is how many simulations run at once; 0 means GOMAXPROCS.
	// Each simulation is single-threaded and the verdicts do not depend
	// on this number.
	Parallel int
	// Models replaces the protocol models (nil: the built-in ones).
	Models sim.Models
}

// Check runs every scenario on the seeds its expectations ask for (the
// corpus seeds first) under each of its protocols, evaluates the
// expectations, and records newly found failing seeds in the corpus. The
// error is for problems that stop a check (bad options, an unreadable
// corpus, a protocol that is not implemented); failed and undecided
// expectations are in the Summary.
func Check(scs []*scenarios.File, opts Options) (*Summary, error) {
	if opts.Seeds < 0 || opts.Seeds > scenarios.MaxSeeds {
		return nil, fmt.Errorf("seeds must be from 1 to %d, found %d", scenarios.MaxSeeds, opts.Seeds)
	}
	implemented := sim.Protocols()
	if opts.Models != nil {
		implemented = opts.Models.Names().Protocols
	}
	for _, p := range opts.Protocols {
		if !slices.Contains(implemented, p) {
			return nil, fmt.Errorf("unknown protocol %q (protocols: %s)", p, strings.Join(implemented, ", "))
		}
	}
	plans := make([]*plan, len(scs))
	for i, sc := range scs {
		p, err := newPlan(sc, opts)
		if err != nil {
			return nil, err
		}
		plans[i] = p
	}
	if err := simulate(plans, opts); err != nil {
		return nil, err
	}
	sum := &Summary{ShuffleTies: opts.ShuffleTies, CorpusDir: opts.CorpusDir}
	for _, p := range plans {
		sum.Scenarios = append(sum.Scenarios, p.evaluate(opts))
	}
	if opts.CorpusDir != "" {
		for i, p := range plans {
			seeds := sum.Scenarios[i].newFailingSeeds(p)
			if len(seeds) == 0 {
				continue
			}
			added, err := addToCorpus(opts.CorpusDir, p.sc.Name, seeds)
			if err != nil {
				return sum, err
			}
			if len(added) > 0 {
				sum.Corpus = append(sum.Corpus, CorpusUpdate{Scenario: p.sc.Name, File: CorpusFile(opts.CorpusDir, p.sc.Name), Seeds: added})
			}
		}
	}
	return sum, nil
}

// plan is what Check does with one scenario: which protocols it reports
// on, which it runs, and on which seeds.
type plan struct {
	sc *scenarios.File
	// protocols get cases; runProtocols are simulated (protocols and the
	// references of their comparisons), in the scenario's order.
	protocols, runProtocols []string
	// corpus are the failing seeds recorded earlier; seeds are every seed
	// to run, corpus first, then the scenario's seed and those after it.
	corpus, seeds []uint64
	// span is how many consecutive seeds from the scenario's seed run.
	span int
	// skipped says why the scenario has no cases ("" when it has).
	skipped string
	// runs holds the results by seed and tie order, then by protocol.
	runs map[runKey]map[string]*sim.Result
}

type runKey struct {
	seed     uint64
	shuffled bool
}

func newPlan(sc *scenarios.File, opts Options) (*plan, error) {
	p := &plan{sc: sc, runs: map[runKey]map[string]*sim.Result{}}
	all, err := rebalsim.ProtocolsFor(sc.Scenario, nil, opts.Models)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Source, err)
	}
	for _, proto := range all {
		if len(opts.Protocols) == 0 || slices.Contains(opts.Protocols, proto) {
			p.protocols = append(p.protocols, proto)
		}
	}
	if len(p.protocols) == 0 {
		p.skipped = fmt.Sprintf("runs none of the protocols asked for (it runs %s)", strings.Join(all, ", "))
		return p, nil
	}
	need := slices.Clone(p.protocols)
	for _, x := range sc.Expect {
		if !appliesToAny(x, p.protocols) {
			continue
		}
		for _, b := range x.Bounds {
			if b.FractionOf != "" && !slices.Contains(need, b.FractionOf) {
				need = append(need, b.FractionOf)
			}
		}
	}
	for _, proto := range all {
		if slices.Contains(need, proto) {
			p.runProtocols = append(p.runProtocols, proto)
		}
	}
	p.corpus, err = readCorpus(opts.CorpusDir, sc.Name)
	if err != nil {
		return nil, err
	}
	p.span = 1
	for _, x := range sc.Expect {
		if appliesToAny(x, p.protocols) {
			p.span = max(p.span, seedCount(x, opts))
		}
	}
	for _, s := range p.corpus {
		if !p.inSpan(s) {
			p.seeds = append(p.seeds, s)
		}
	}
	for i := range p.span {
		p.seeds = append(p.seeds, sc.Seed+uint64(i))
	}
	return p, nil
}

// inSpan reports whether s is one of the consecutive seeds from the
// scenario's own.
func (p *plan) inSpan(s uint64) bool { return s-p.sc.Seed < uint64(p.span) }

// seedCount is how many consecutive seeds an expectation is checked on.
func seedCount(x scenarios.Expectation, opts Options) int {
	if opts.Seeds > 0 {
		return opts.Seeds
	}
	return max(x.Seeds, 1)
}

// quantile is the fraction of seeds an expectation must hold on.
func quantile(x scenarios.Expectation) float64 {
	if x.Quantile <= 0 {
		return 1
	}
	return x.Quantile
}

func appliesTo(x scenarios.Expectation, protocol string) bool {
	return len(x.Protocols) == 0 || slices.Contains(x.Protocols, protocol)
}

func appliesToAny(x scenarios.Expectation, protocols []string) bool {
	return slices.ContainsFunc(protocols, func(p string) bool { return appliesTo(x, p) })
}

// job is one simulation: a scenario on one seed in one tie order, under
// every protocol it runs.
type job struct {
	plan *plan
	key  runKey
}

// simulate runs every plan's simulations on a pool of workers. Each
// simulation is deterministic and independent, so the order they finish
// in does not matter; results are filed by (scenario, seed, tie order).
func simulate(plans []*plan, opts Options) error {
	var jobs []job
	for _, p := range plans {
		if p.skipped != "" {
			continue
		}
		for _, s := range p.seeds {
			jobs = append(jobs, job{p, runKey{s, false}})
			if opts.ShuffleTies {
				jobs = append(jobs, job{p, runKey{s, true}})
			}
		}
	}
	workers := opts.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]map[string]*sim.Result, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = runJob(jobs[i], opts)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, j := range jobs {
		j.plan.runs[j.key] = results[i]
	}
	return nil
}

func runJob(j job, opts Options) (map[string]*sim.Result, error) {
	sc := *j.plan.sc.Scenario
	sc.Seed = j.key.seed
	results, err := rebalsim.Run(&sc, rebalsim.Options{
		Protocols: j.plan.runProtocols, Seed: j.key.seed, ShuffleTies: j.key.shuffled, Models: opts.Models,
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]*sim.Result, len(results.Runs))
	for _, r := range results.Runs {
		out[r.Protocol] = r
	}
	j.plan.slim(out)
	return out, nil
}
