package scenarios

import "testing"

// TestRejectTopicLoad: the keys of uneven and changing production, and
// stuck_after, name what is wrong and where.
func TestRejectTopicLoad(t *testing.T) {
	const head = "duration: 2m\nmembers: [{id: c1}]\n"
	topic := func(extra string) string { return head + "topics:\n  - {name: orders, partitions: 3, " + extra + "}\n" }
	checkRejections(t, []rejection{
		{"negative partition rate", topic("rates: [10, -1]"), "t.yaml:4:47",
			[]string{"rates are records per second and cannot be negative, found -1"}},
		{"more rates than partitions", topic("rates: [1, 2, 3, 4]"), "t.yaml:4:42",
			[]string{"rates lists 4 partitions but the topic has 3"}},
		{"unknown skew", topic("skew: {dist: pareto}"), "t.yaml:4:48",
			[]string{`skew dist must be zipf or lognormal, found "pareto"`}},
		{"zipf without exponent", topic("skew: {dist: zipf}"), "t.yaml:4:41",
			[]string{"a zipf skew needs its exponent; write {dist: zipf, s: 1.1}"}},
		{"rates and skew", topic("rates: [1, 2, 3], skew: {dist: lognormal, sigma: 1}"), "t.yaml:4:59",
			[]string{"a topic takes rates: or skew:, not both"}},
		{"hot partition out of range", topic("hot: {partitions: [3], rate: 500}"), "t.yaml:4:54",
			[]string{"hot partitions must be a whole number from 0 to 2, found 3"}},
		{"hot without rate", topic("hot: {partitions: [0]}"), "t.yaml:4:40",
			[]string{"hot has no rate:"}},
		{"load factor zero", topic("load: [{at: 1m, factor: 0}]"), "t.yaml:4:59",
			[]string{"factor multiplies the topic's rates and must be positive, found 0"}},
		{"load steps out of order", topic("load: [{at: 1m, factor: 2}, {at: 30s, factor: 3}]"), "t.yaml:4:63",
			[]string{"load steps must be in time order: 30s comes after 1m0s"}},
		{"stuck_after zero", head + "stuck_after: 0s\ntopics: [{name: orders, partitions: 3}]\n", "t.yaml:3:14",
			[]string{"stuck_after must be a positive duration such as 1m, found 0s"}},
	})
}
