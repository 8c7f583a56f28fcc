// Package check is rebalsim's CI regression mode: it runs scenarios,
// judges the expectations of their expect: sections, and renders the
// verdicts for a terminal, for JUnit-reading CI systems and for a
// pull-request comment. `rebalsim check` is a thin shell around it.
//
// A minimal use:
//
//	scs, err := check.Load("scenarios/library/", "my-group.yaml")
//	if err != nil { ... }                      // bad files: exit 2
//	sum, err := check.Check(scs, check.Options{CorpusDir: check.DefaultCorpusDir})
//	if err != nil { ... }
//	sum.WriteText(os.Stdout, false)
//	atomicfile.Write("report.xml", sum.WriteJUnit)
//	if sum.Verdict() != check.Pass { ... }     // Fail: exit 1, Undecided: exit 2
//
// # What is checked
//
// Each key of an expect: entry is one check, and each check is judged per
// protocol the entry applies to (protocols:, or every run): one Case, one
// JUnit testcase.
//
//   - max_<metric>: N and min_<metric>: N bound any metric of the results
//     contract (sim.MetricNames).
//   - max_<metric>: {fraction_of: P, value: F} compares with protocol P's
//     run on the same seed: this protocol's value ≤ F × P's (min_: ≥). The
//     entry must name its protocols, without P.
//   - converged_within: D is the liveness check of deterministic
//     simulation testing: faults heal when their disturbance ends (a pause,
//     stall or network partition is over, a restarted member is back), and
//     from then on the group must be stable again within D. Disturbances
//     that overlap form one episode, timed from the end of the last of
//     them. A run still unstable at the horizon fails, naming the members
//     and partitions still pending, when D had elapsed by then; when it had
//     not, the case is Undecided (lengthen the scenario's duration).
//   - no_zombie_processing: no member went on processing after the
//     coordinator fenced or removed it.
//   - no_double_ownership: no partition had two owners among current
//     members. Safety is judged on every run the check makes (every seed,
//     both tie orders); a protocol with no such entry gets an implicit one,
//     so a safety finding always fails the check. no_double_ownership:
//     false declares a hazard Kafka itself allows for the entry's
//     protocols: their safety case is replaced by the entry's positive
//     min_double_ownership_seconds, which shows the hazard.
//
// # Seeds
//
// An entry's seeds: N checks each of its checks on the scenario's seed and
// the N-1 after it (Options.Seeds overrides N for every entry). A check
// must hold on every seed, or with quantile: q on at least ⌈q × N⌉ of them;
// the case shows the seed at that rank from the best (the worst seed when
// q is 1). Seeds are simulated once per scenario, under every protocol, so
// comparisons see the same seed on both sides.
//
// # Corpus
//
// With Options.CorpusDir set, the seeds a check that must hold on every
// seed failed on (other than the scenario's own) are added to
// DIR/<scenario>.seeds (one seed per line, sorted, written atomically),
// and every later check replays them first, on top of the seeds its
// expectations ask for.
//
// # Tie order
//
// With Options.ShuffleTies every seed runs twice: with simultaneous events
// in sequence order, and in an order drawn from the seed. Expectations are
// judged on the first; a tie-order case per protocol fails when the safety
// verdict, convergence at the horizon or a converged_within verdict
// differs between the two.
//
// # Reading a failure
//
// A failed case names the scenario, the protocol, the check as written and
// its line, the bound, the measured value and its seed, and where in
// virtual time it went wrong: for convergence the disturbance that did not
// settle in time, for safety and zombies the finding's time, for bounds on
// moved partitions, revocations and lag the disturbance just before the
// series crossed the bound, and otherwise the first disturbance. Its Trace
// is the `rebalsim run ... --trace` command that reruns exactly that seed.
//
// Everything is deterministic: simulations run in parallel, but verdicts
// and every output depend only on the scenarios, the options and the
// corpus, never on timing. Each seed is judged as soon as its runs end
// and its results are then dropped, so a check's memory does not grow
// with the number of seeds.
package check
