package check

import "slices"

// Status is the verdict of one case.
type Status string

const (
	// Pass: the expectation held (on at least the stated share of seeds).
	Pass Status = "pass"
	// Fail: it did not; for a bound, the measured value is past it.
	Fail Status = "fail"
	// Undecided: the run could not tell, because the horizon ended before
	// the convergence bound had elapsed and the group had not converged.
	Undecided Status = "undecided"
)

// Case is the verdict of one check of one expectation under one protocol,
// over the seeds it covers: a testcase in JUnit terms.
type Case struct {
	Scenario string
	// Source and Line locate the expectation (Line is 0 for the implicit
	// safety case and the tie-order case).
	Source string
	Line   int
	// Protocol is the run the case judges.
	Protocol string
	// Check names what is checked, as the scenario writes it
	// ("max_moved_partitions: 3", "converged_within: 30s"), or for the
	// cases that no line states, "no_double_ownership (implicit)" and
	// "tie order".
	Check  string
	Status Status
	// Bound is what must hold ("≤ 3", "≤ 0.5 × eager's", "stable within 30s
	// of each disturbance's end"); Measured is what the run showed on
	// Seed, the seed the verdict is shown for: the worst seed, or for a
	// quantile the seed at that quantile.
	Bound    string
	Measured string
	Seed     uint64
	// Shuffled is set when Seed's run that went wrong had its ties
	// shuffled (the trace command then needs --shuffle-ties).
	Shuffled bool
	// Seeds, Held and Needed count the seeds checked, those the check held
	// on, and those it had to hold on (Quantile × Seeds, rounded up).
	Seeds, Held, Needed int
	// At and AtLabel say where in virtual time it went wrong, in seconds,
	// and the disturbance it followed; HasAt is false when there is no
	// such place (a pass, or a scenario without disturbances).
	At      float64
	AtLabel string
	HasAt   bool
	// Detail adds what a reader needs next: members and partitions still
	// pending, the members of a finding, the verdicts that changed.
	Detail string
	// Trace is the command that reruns Seed under Protocol with a trace.
	Trace string
	// FailingSeeds are the seeds the check failed on.
	FailingSeeds []uint64
	// everySeed marks the checks that must hold on every seed, whose
	// failing seeds belong in the corpus.
	everySeed bool
	// reference is the protocol a comparison refers to ("" if none).
	reference string
}

// ScenarioResult holds the cases of one scenario, in a fixed order: the
// expectations in file order, each check of an entry, each protocol; then
// the implicit safety cases and the tie-order cases.
type ScenarioResult struct {
	Name        string
	Source      string
	Description string
	// Seed is the scenario's seed; Seeds every seed run (corpus first).
	Seed  uint64
	Seeds []uint64
	// Protocols are the protocols with cases.
	Protocols []string
	Cases     []Case
	// Runs counts the simulations (one per seed, tie order and protocol).
	Runs int
	// Skipped says why the scenario was not checked ("" if it was).
	Skipped string
}

// CorpusUpdate records seeds that a check added to a corpus file.
type CorpusUpdate struct {
	Scenario string
	File     string
	Seeds    []uint64
}

// Summary is the outcome of a check.
type Summary struct {
	Scenarios   []ScenarioResult
	ShuffleTies bool
	CorpusDir   string
	Corpus      []CorpusUpdate
}

// Count returns how many cases have each status.
func (s *Summary) Count() (pass, fail, undecided int) {
	for _, sc := range s.Scenarios {
		p, f, u := sc.Count()
		pass, fail, undecided = pass+p, fail+f, undecided+u
	}
	return pass, fail, undecided
}

// Count returns how many of the scenario's cases have each status.
func (r ScenarioResult) Count() (pass, fail, undecided int) {
	for _, c := range r.Cases {
		switch c.Status {
		case Pass:
			pass++
		case Fail:
			fail++
		default:
			undecided++
		}
	}
	return pass, fail, undecided
}

// Verdict is Fail when any case failed, else Undecided when any could not
// be decided, else Pass.
func (s *Summary) Verdict() Status {
	_, fail, undecided := s.Count()
	switch {
	case fail > 0:
		return Fail
	case undecided > 0:
		return Undecided
	}
	return Pass
}

// Runs counts the simulations of the check.
func (s *Summary) Runs() int {
	n := 0
	for _, sc := range s.Scenarios {
		n += sc.Runs
	}
	return n
}

// newFailingSeeds returns the seeds that failed a check that must hold on
// every seed, apart from the scenario's own seed (always checked) and the
// seeds already in the corpus.
func (r ScenarioResult) newFailingSeeds(p *plan) []uint64 {
	var out []uint64
	for _, c := range r.Cases {
		if !c.everySeed {
			continue
		}
		for _, s := range c.FailingSeeds {
			if s != p.sc.Seed && !slices.Contains(p.corpus, s) && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	return out
}
