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
		sum.Scenarios = append(sum.Scenarios, p.evaluate())
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
// on, which it runs, on which seeds, and the judges that fold each seed's
// outcomes into the scenario's cases as the seeds finish.
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
	// judges are the scenario's cases in report order.
	judges []*judge
	// mu guards the judges' tallies and runs while seeds finish in
	// parallel.
	mu sync.Mutex
	// runs counts the simulations judged.
	runs int
}

func newPlan(sc *scenarios.File, opts Options) (*plan, error) {
	p := &plan{sc: sc}
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
	p.judges = p.newJudges(opts)
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

// job is one seed of one scenario, run in every tie order the check asks
// for, under every protocol the scenario runs.
type job struct {
	plan *plan
	seed uint64
}

// simulate runs every plan's seeds on a pool of workers and hands each
// seed's results to its plan's judges as soon as the seed is done, so
// that the results of a seed are garbage once it is judged: a check's
// memory does not grow with its seed count. Each simulation is
// deterministic and independent, and the judges' tallies do not depend on
// the order seeds finish in.
func simulate(plans []*plan, opts Options) error {
	var jobs []job
	for _, p := range plans {
		if p.skipped != "" {
			continue
		}
		for _, s := range p.seeds {
			jobs = append(jobs, job{p, s})
		}
	}
	workers := opts.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	var errs []error
	next := make(chan job)
	var wg sync.WaitGroup
	for range min(workers, max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				if err := j.plan.runSeed(j.seed, opts); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// runSeed simulates one seed (twice with ShuffleTies) and judges it.
func (p *plan) runSeed(seed uint64, opts Options) error {
	ordered, err := p.run(seed, false, opts)
	if err != nil {
		return err
	}
	var shuffled map[string]*sim.Result
	if opts.ShuffleTies {
		if shuffled, err = p.run(seed, true, opts); err != nil {
			return err
		}
	}
	p.judgeSeed(seed, ordered, shuffled)
	return nil
}

// run simulates the scenario on one seed in one tie order and returns the
// results by protocol.
func (p *plan) run(seed uint64, shuffled bool, opts Options) (map[string]*sim.Result, error) {
	sc := *p.sc.Scenario
	sc.Seed = seed
	results, err := rebalsim.Run(&sc, rebalsim.Options{
		Protocols: p.runProtocols, Seed: seed, ShuffleTies: shuffled, Models: opts.Models,
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]*sim.Result, len(results.Runs))
	for _, r := range results.Runs {
		out[r.Protocol] = r
	}
	return out, nil
}
