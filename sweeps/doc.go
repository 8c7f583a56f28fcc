// Package sweeps runs a scenario over a grid of varied values × seeds ×
// protocols and summarises every metric per grid point and protocol. It
// answers the questions a design review asks of many runs rather than one:
// "how does downtime grow with group size under each protocol, and how bad
// is the tail?".
//
// A minimal use, from a scenario file to its statistics:
//
//	data, _ := os.ReadFile("rolling-restart.yaml")
//	g, err := sweeps.Expand("rolling-restart.yaml", data, sweeps.Spec{
//		Seeds: 200,
//		Vary: []scenarios.Variation{
//			{Path: "members", Values: []string{"10", "50", "100"}},
//			{Path: "session_timeout", Values: []string{"10s", "45s"}},
//		},
//	})
//	if err != nil { ... }                  // names the grid point and file:line:col
//	res, err := sweeps.Run(ctx, g, sweeps.Options{})
//	if err != nil { ... }
//	files, err := sweeps.Write("out", res, sweeps.WriteOptions{})
//
// The caller's duties, in order:
//
//  1. Expand the grid. Each point is the scenario file with one
//     scenarios.Override per varied path, decoded by the same loader as any
//     file, so every value is checked and a bad one is reported with the
//     grid point and the file position. Expand fails before anything runs.
//  2. Run it, or one shard of it (Options.Shard). Runs go to a pool of
//     Options.Parallel goroutines, one run each at a time; a run is
//     single-threaded and deterministic, and results are kept by run index,
//     so the output never depends on scheduling or on the pool size.
//  3. Write the result (Write). A whole sweep writes runs.csv (one row per
//     run), stats.csv and stats.json (per point and protocol: mean, its 95%
//     confidence interval, quantiles, max), manifest.json, and report.html
//     with its charts. A shard writes only runs.csv and manifest.json.
//  4. Merge shards (Read each directory, then Merge) into a Result that
//     Write turns into exactly the files a single-machine sweep writes,
//     byte for byte.
//
// Run order. Runs are numbered
//
//	run = ((point × seeds) + seed) × protocols + protocol
//
// with point the grid point in grid order (the first varied path changes
// slowest), seed the seed's position at that point (0 is the point's
// scenario seed, then +1, +2, ...), and protocol the position in the
// sweep's protocol list. Shard i/n (1-based) holds the runs with
// run mod n = i-1, so shards never overlap, together cover the sweep
// exactly, and each gets a fair share of every grid point however unequal
// the points' costs.
package sweeps
