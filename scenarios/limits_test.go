package scenarios

import (
	"strings"
	"testing"
)

// TestNodeBudgetRefusesBeforeParsing: a file of many tiny values is
// refused by the count that runs before the YAML parser builds its tree,
// at the place the count passes the budget, whatever hides the values.
func TestNodeBudgetRefusesBeforeParsing(t *testing.T) {
	// The count is an upper bound: 16 for the head (1 for the root, 2 for
	// each of its 6 colons, 1 for each bracket and the comma).
	const head = "name: x\nduration: 1m\ntopics: [{name: t, partitions: 1}]\nmembers:\n"
	for _, tc := range []struct {
		name, body, at string
	}{
		// One per item after the head's 16: the 1,499,985th item (line
		// 4 + 1,499,985) passes 1,500,000.
		{"block list", strings.Repeat("- a\n", 1_600_000), "t.yaml:1499989:1"},
		// Flow style: a '[' and then one value per comma.
		{"flow list", "  [" + strings.Repeat("a,", 1_600_000) + "a]\n", "t.yaml:5:"},
		// Quotes and comments do not hide values from the count.
		{"in a comment", "# " + strings.Repeat("a,", 1_600_000) + "\n", "t.yaml:5:"},
	} {
		_, err := Parse("t.yaml", []byte(head+tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.at) || !strings.Contains(err.Error(), "more than 1,500,000 YAML values") {
			t.Errorf("%s: error %v, want one at %s naming the limit", tc.name, err, tc.at)
		}
	}
}

// TestNodeBudgetKeepsLargeValidFiles: the largest allowed group written
// out one member per line is far below the budget (4 values a member).
func TestNodeBudgetKeepsLargeValidFiles(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: x\nduration: 1m\ntopics: [{name: t, partitions: 1}]\nmembers:\n")
	for i := range 100_000 {
		b.WriteString("  - {id: c")
		b.WriteString(strings.Repeat("1", 1+i%5))
		b.WriteString("}\n")
	}
	if _, _, over := overNodeBudget([]byte(b.String())); over {
		t.Error("100,000 members written out pass the node budget")
	}
}
