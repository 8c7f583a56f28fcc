package conformance

import (
	"errors"
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
	classic "github.com/rebalsim/rebalsim/protocols/classic/assignor"
	"github.com/rebalsim/rebalsim/protocols/nextgen/reconcile"
)

// maxSkips bounds how many of Kafka's vectors may be skipped. Every vector
// in testdata/kafka-vectors.yaml runs today; a new skip must be a form the
// runner really cannot execute, and raising this bound says so in review.
const maxSkips = 0

func TestKafkaVectors(t *testing.T) {
	f, err := Load("testdata/kafka-vectors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[Status]int{}
	for _, o := range f.Run(Options{}) {
		counts[o.Status]++
		switch o.Status {
		case Fail:
			t.Errorf("%s", o)
		case Skip:
			if strings.TrimSpace(o.Detail) == "" {
				t.Errorf("%s[%s] skipped without a reason", o.Name, o.Assignor)
			}
			t.Logf("%s", o)
		}
	}
	t.Logf("%d pass, %d fail, %d skip", counts[Pass], counts[Fail], counts[Skip])
	if counts[Skip] > maxSkips {
		t.Errorf("%d vectors skipped, at most %d expected", counts[Skip], maxSkips)
	}
	if counts[Pass] == 0 {
		t.Error("no vector passed")
	}
}

func TestMalformedFileNamesTheLine(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // substrings of the error
	}{{
		name: "partition count is not a number",
		yaml: `vectors:
- name: v
  kind: client_assignor
  assignor: range
  input:
    topics: {t1: three}
    members:
      - {id: c1, subscription: [t1]}
  expected:
    assignment: {c1: {t1: [0]}}
`,
		want: []string{"bad.yaml:6:", "input.topics.t1", "partition count", `"three"`},
	}, {
		name: "partition list is a scalar",
		yaml: `vectors:
- name: v
  kind: client_assignor
  assignor: range
  input:
    topics: {t1: 1}
    members:
      - {id: c1, subscription: [t1]}
  expected:
    assignment:
      c1: {t1: 0}
`,
		want: []string{"bad.yaml:11:", "expected.assignment.c1.t1", "want a list"},
	}, {
		name: "duplicate key",
		yaml: `vectors:
- name: v
  kind: reconciliation
  kind: client_assignor
`,
		want: []string{"bad.yaml:4:", `duplicate key "kind"`},
	}, {
		name: "vector without a name",
		yaml: `vectors:
- kind: reconciliation
`,
		want: []string{"bad.yaml:2:", "without a name"},
	}, {
		name: "unknown top-level key",
		yaml: `vector:
- name: v
`,
		want: []string{"bad.yaml:1:", `unknown key "vector"`, `did you mean "vectors"`},
	}, {
		name: "unknown reconciliation state",
		yaml: `vectors:
- name: v
  kind: reconciliation
  input:
    member: {state: STEADY, epoch: 1, previous_epoch: 1}
    target: {epoch: 1, assignment: {}}
  expected:
    unchanged: true
`,
		want: []string{"bad.yaml:5:", "STEADY", "UNREVOKED_PARTITIONS"},
	}, {
		name: "not YAML",
		yaml: "vectors: [\n",
		want: []string{"bad.yaml", "line"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatal("Parse accepted a malformed file")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// run parses one file and returns its outcomes.
func run(t *testing.T, yaml string, opts Options) []Outcome {
	t.Helper()
	f, err := Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return f.Run(opts)
}

func TestWrongExpectationFailsWithDiff(t *testing.T) {
	out := run(t, `vectors:
- name: range_wrong
  kind: client_assignor
  assignor: range
  input:
    topics: {t1: 3}
    members:
      - {id: c1, subscription: [t1]}
      - {id: c2, subscription: [t1]}
  expected:
    assignment:
      c1: {t1: [0]}
      c2: {t1: [1, 2]}
    exact: true
`, Options{})
	if len(out) != 1 || out[0].Status != Fail {
		t.Fatalf("outcomes = %v, want one Fail", out)
	}
	for _, w := range []string{
		"c1: expected {t1[0]}, got {t1[0 1]} (extra {t1[1]})",
		"c2: expected {t1[1 2]}, got {t1[2]} (missing {t1[1]})",
	} {
		if !strings.Contains(out[0].Detail, w) {
			t.Errorf("detail does not contain %q:\n%s", w, out[0].Detail)
		}
	}
}

func TestEveryAssignorOfAListRuns(t *testing.T) {
	out := run(t, `vectors:
- name: both
  kind: client_assignor
  assignor: [sticky, cooperative-sticky]
  input:
    topics: {t: 2}
    members:
      - {id: a, subscription: [t], owned: {t: [0, 1]}, generation: 3}
      - {id: b, subscription: [t], generation: 3}
  expected:
    first_round: {cooperative-sticky: {a: {t: [0]}, b: {}}}
    assignment: {a: {t: [0]}, b: {t: [1]}}
    transferring: {"t-1": b}
    properties: [valid, balanced, sticky, coop_safe]
`, Options{})
	if len(out) != 2 || out[0].Assignor != "sticky" || out[1].Assignor != "cooperative-sticky" {
		t.Fatalf("outcomes = %v", out)
	}
	for _, o := range out {
		if o.Status != Pass {
			t.Errorf("%s", o)
		}
	}
	if !strings.Contains(out[1].Detail, "after 1 follow-up rebalance") {
		t.Errorf("cooperative detail does not mention the follow-up: %s", out[1].Detail)
	}
}

func TestWhatCannotBeCheckedIsSkipped(t *testing.T) {
	tests := []struct {
		name, vector, reason string
	}{{
		name: "property in free text nobody understands",
		vector: `- name: v
  kind: client_assignor
  assignor: range
  input:
    topics: {t: 1}
    members: [{id: a, subscription: [t]}]
  expected:
    assignment: {a: {t: [0]}}
    properties: ["fair to everyone"]`,
		reason: `property "fair to everyone" is not understood`,
	}, {
		name: "then step in words the runner cannot read",
		vector: `- name: v
  kind: client_assignor
  assignor: range
  input:
    topics: {t: 2}
    members: [{id: a, subscription: [t]}]
  expected:
    assignment: {a: {t: [0, 1]}}
  then:
    - step: "restart every member twice"
      expected:
        assignment: {a: {t: [0, 1]}}`,
		reason: `cannot execute then step "restart every member twice"`,
	}, {
		name: "order-sensitive answer without the order",
		vector: `- name: v
  kind: client_assignor
  assignor: range
  input:
    topics: {t: 2}
    members: [{id: a, subscription: [t]}, {id: b, subscription: [t]}]
  expected:
    assignment: {a: {t: [1]}, b: {t: [0]}}
    order_sensitive: true`,
		reason: "depends on Java iteration order",
	}, {
		name: "sticky with unequal subscriptions",
		vector: `- name: v
  kind: client_assignor
  assignor: sticky
  input:
    topics: {t: 2, u: 1}
    members: [{id: a, subscription: [t]}, {id: b, subscription: [t, u]}]
  expected:
    properties: [valid, sticky]`,
		reason: "sticky is only checked for equal subscriptions",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := run(t, "vectors:\n"+tt.vector+"\n", Options{})
			if len(out) != 1 || out[0].Status != Skip {
				t.Fatalf("outcomes = %v, want one Skip", out)
			}
			if !strings.Contains(out[0].Detail, tt.reason) || !strings.Contains(out[0].Detail, "test.yaml:") {
				t.Errorf("skip reason %q does not say %q at a file position", out[0].Detail, tt.reason)
			}
		})
	}
}

// TestUnknownKeysAndKindsAreErrors: a typo in a key or a kind is not a
// vector to skip (a skip exits 0, so the typo would pass CI) but an error
// naming the place and the nearest known word; so is a second document.
func TestUnknownKeysAndKindsAreErrors(t *testing.T) {
	const group = "  input:\n    topics: {t: 1}\n    members: [{id: a, subscription: [t]}]\n"
	for _, tc := range []struct{ name, file, want string }{
		{"unknown kind", "vectors:\n- name: v\n  kind: client_asignor\n  assignor: range\n" + group + "  expected: {properties: [valid]}\n",
			`test.yaml:3:9: (top level).vectors[0].kind: unknown kind "client_asignor" (did you mean "client_assignor"?)`},
		{"misspelt kind key", "vectors:\n- name: v\n  kinnd: client_assignor\n  assignor: range\n" + group + "  expected: {properties: [valid]}\n",
			`unknown key "kinnd" (did you mean "kind"?)`},
		{"unknown expected key", "vectors:\n- name: v\n  kind: client_assignor\n  assignor: range\n" + group + "  expected:\n    assigment: {a: {t: [0]}}\n",
			`test.yaml:9:5: (top level).vectors[0].expected.assigment: expected: unknown key "assigment" (did you mean "assignment"?)`},
		{"unknown member key", "vectors:\n- name: v\n  kind: client_assignor\n  assignor: range\n  input:\n    topics: {t: 1}\n    members: [{id: a, subscribtion: [t]}]\n  expected: {properties: [valid]}\n",
			`unknown key "subscribtion" (did you mean "subscription"?)`},
		{"unknown version", "vectors:\n- name: v\n  version: \"5.0\"\n  kind: client_assignor\n  assignor: range\n" + group + "  expected: {properties: [valid]}\n",
			`version "5.0" is neither 4.0 nor trunk`},
		{"second document", "vectors: []\n---\nvectors: []\n", "test.yaml:2:1: a second YAML document starts here"},
		// Limits: the partitions, members and steps of one vector.
		{"too many partitions", "vectors:\n- name: v\n  kind: client_assignor\n  assignor: range\n  input:\n    topics: {t: 2000000000}\n    members: [{id: a, subscription: [t]}]\n  expected: {properties: [valid]}\n",
			"the topics have 2000000000 partitions in total; the limit for a vector is 200000"},
		{"a step of too many members", "vectors:\n- name: v\n  kind: client_assignor\n  assignor: range\n  input:\n    topics: {t: 1}\n    steps: [\"[c1..c2000000000]\"]\n  expected: {properties: [valid]}\n",
			"names more than 20000 members, the limit for a vector"},
	} {
		_, err := Parse("test.yaml", []byte(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestPropertiesAndCountsCatchBadAssignors(t *testing.T) {
	// An "assignor" that gives everything to the first member.
	greedy := func(name string) (classic.Assignor, bool) { return firstTakesAll{}, true }
	out := run(t, `vectors:
- name: v
  kind: client_assignor
  assignor: greedy
  input:
    topics: {t: 4}
    steps: ["[c1]", "[c1, c2]"]
  expected:
    per_topic_count_per_member_by_step: [4, 2]
    properties: [valid, balanced]
`, Options{ClientAssignor: greedy})
	if len(out) != 1 || out[0].Status != Fail {
		t.Fatalf("outcomes = %v, want one Fail", out)
	}
	for _, w := range []string{
		"step 2 [c1 c2]: 2 partitions of each topic per member",
		"c1 holds 4 partitions of t, expected 2",
		"step 2 [c1 c2]: balanced",
	} {
		if !strings.Contains(out[0].Detail, w) {
			t.Errorf("detail does not contain %q:\n%s", w, out[0].Detail)
		}
	}
}

type firstTakesAll struct{}

func (firstTakesAll) Name() string { return "greedy" }
func (firstTakesAll) Protocols() []kafka.RebalanceProtocol {
	return []kafka.RebalanceProtocol{kafka.Eager}
}
func (firstTakesAll) Assign(in classic.Input) classic.Result {
	out := map[string]kafka.Assignment{}
	for i, m := range in.Members {
		out[m.MemberID] = kafka.Assignment{}
		if i == 0 {
			for _, t := range in.Topics {
				for p := range t.Partitions {
					out[m.MemberID][t.Name] = append(out[m.MemberID][t.Name], p)
				}
			}
		}
	}
	return classic.Result{Assignment: out}
}

func TestReconciliationAgainstAnotherImplementation(t *testing.T) {
	const file = `vectors:
- name: fenced
  kind: reconciliation
  input:
    member: {state: UNKNOWN, epoch: 11, previous_epoch: 11, assigned: {t1: [3]}, pending_revocation: {}}
    target: {epoch: 12, assignment: {t1: [3]}}
    cases:
      - {partition_epoch: {default: 10}, owned: null, expected: {error: FENCED_MEMBER_EPOCH}}
      - {partition_epoch: {default: 11, overrides: {t1: {3: -1}}}, owned: {}, expected: {member: {state: STABLE, epoch: 12}}}
`
	var seen []reconcile.Input
	stub := func(in reconcile.Input) (reconcile.Member, error) {
		seen = append(seen, in)
		if !in.OwnedKnown {
			return reconcile.Member{}, errors.New("some other error")
		}
		return reconcile.Member{State: reconcile.Stable, Epoch: 11}, nil
	}
	out := run(t, file, Options{Reconcile: stub})
	if len(out) != 1 || out[0].Status != Fail {
		t.Fatalf("outcomes = %v, want one Fail", out)
	}
	for _, w := range []string{"case 1: error: expected FENCED_MEMBER_EPOCH, got some other error", "case 2: member:", "epoch: expected 12, got 11"} {
		if !strings.Contains(out[0].Detail, w) {
			t.Errorf("detail does not contain %q:\n%s", w, out[0].Detail)
		}
	}
	if len(seen) != 2 || seen[1].PartitionEpoch(kafka.TopicPartition{Topic: "t1", Partition: 3}) != -1 ||
		seen[1].PartitionEpoch(kafka.TopicPartition{Topic: "t1", Partition: 4}) != 11 {
		t.Errorf("partition epochs were not passed through: %d calls", len(seen))
	}
}
