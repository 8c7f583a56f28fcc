package assignor

import (
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

// TestNewTopicIndexRejectsADuplicate: topic metadata that lists a topic
// twice is an error naming it, whether the names ascend (the quick check)
// or not (the hash table), and distinct names are not.
func TestNewTopicIndexRejectsADuplicate(t *testing.T) {
	for _, tc := range []struct {
		names []string
		dup   string // "" for none
	}{
		{[]string{"a", "b", "c"}, ""},
		{[]string{"c", "a", "b"}, ""},
		{[]string{"a", "b", "b"}, "b"},
		{[]string{"b", "a", "b"}, "b"},
		// The first name an earlier one repeats is reported.
		{[]string{"x", "y", "y", "x"}, "y"},
		{[]string{"t9", "t10", "t11", "t10", "t9"}, "t10"},
	} {
		topics := make([]kafka.Topic, len(tc.names))
		for i, n := range tc.names {
			topics[i] = kafka.Topic{Name: n, Partitions: 1}
		}
		_, err := newTopicIndex(topics)
		switch {
		case tc.dup == "" && err != nil:
			t.Errorf("%v: unexpected error %v", tc.names, err)
		case tc.dup != "" && (err == nil || !strings.Contains(err.Error(), `topic "`+tc.dup+`" is listed twice`)):
			t.Errorf("%v: got error %v, want one naming %q", tc.names, err, tc.dup)
		}
	}
}
