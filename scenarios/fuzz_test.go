package scenarios

import (
	"strings"
	"testing"
)

// FuzzParse feeds Parse arbitrary bytes. Whatever the input, Parse must not
// panic; every line of an error must name the source; and whatever it
// accepts must satisfy Validate and the limits.
//
//	go test -fuzz=FuzzParse ./scenarios
func FuzzParse(f *testing.F) {
	for _, name := range exampleNames() {
		src, err := ExampleSource(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, seed := range []string{
		base,
		designScenario,
		"",
		"---\n",
		"a: 1\n---\nb: 2\n",
		"- x\n",
		"duration: 45\n",
		base + "defaults: {sesion_timeout: 10s}\n",
		base + "events:\n  - {at: 1m, crash: [c1, all]}\n",
		base + "events:\n  - {at: 1m, rolling_restart: {members: all, interval: 1s, set: {heartbeat_interval: 1h}}}\n",
		base + "defaults: &d {subscription: *d}\n",
		base + "events: &e [*e]\n",
		base + "x: &a [a, a]\ny: &b [*a, *a]\n",
		base + "members: [&m {id: \"c{i}\", count: 2}, *m]\n",
		base + "network: {latency: {dist: uniform, min: 5ms, max: 1ms}}\n",
		base + "expect:\n  - {max_convergence_seconds: 30s, min_rebalances: -1}\n",
		base + "events:\n  - {at: 1m, add_partitions: {topic: orders, partitions: 2147483647}}\n",
		"duration: 2m\ntopics: [{name: o, partitions: 1}]\nmembers: [{count: 100000, id: \"c{i}\"}]\nevents: [{at: 1s, crash: all}]\n",
		"{duration: 1ns, topics: [{name: \"\", partitions: -1}], members: [{id: \"\"}]}",
		"? [a]\n: b\n",
		"name: \"\\u0000\"\n",
		"seed: 0x10\nduration: 1h\n",
		"\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.yaml") {
					t.Fatalf("error line %q does not start with the source name; the whole error:\n%v", line, err)
				}
			}
			if s != nil {
				t.Fatalf("Parse returned a scenario with an error")
			}
			return
		}
		if err := ValidateFile(s); err != nil {
			t.Fatalf("Parse accepted what Validate rejects:\n%v", err)
		}
		if len(s.Members) > MaxMembers {
			t.Fatalf("Parse accepted %d members", len(s.Members))
		}
		actions := 0
		for i, e := range s.Events {
			actions += max(len(e.Members), 1)
			if i > 0 && e.At < s.Events[i-1].At {
				t.Fatalf("events out of order")
			}
		}
		if actions > MaxEventActions {
			t.Fatalf("Parse accepted %d event actions", actions)
		}
	})
}
