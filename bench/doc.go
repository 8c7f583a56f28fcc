// Package bench holds what BENCHMARKS.md measures whole runs with: the
// scenario files beside this package (bench/*.yaml, run by the CLI) and
// the scaling table, which shows how the cost of a rolling restart grows
// with the group's members and its partitions under each protocol.
//
// The scaling table is made in two steps, both with the project's own
// tools:
//
//	go test -run '^$' -bench Scaling -benchmem -timeout 30m ./bench | tee scaling.txt
//	go run ./bench/scalingtable scaling.txt
//
// The first runs BenchmarkScaling over Grid, one generated scenario per
// point (Source); the second reads its output (ParseResults), fits each
// protocol's cost to c × members^a × partitions^b by least squares on the
// logarithms (FitGrowth) and prints the Markdown table (WriteTable).
// go test's default limit of 10 minutes is too tight for the whole grid
// on a busy machine, hence -timeout. No point takes minutes: the
// costliest, 10,000 members and 1M partitions under the eager protocol,
// is about 20 s of CPU and 2 GB; -bench takes a narrower pattern
// (Scaling/protocol=nextgen, or Scaling//members=10$) for a part of the
// grid. go test builds without the CLI's profile-guided optimisation;
// -pgo=$PWD/cmd/rebalsim/default.pgo builds as the CLI does.
package bench
