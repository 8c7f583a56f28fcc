package transcript

import (
	"testing"

	"github.com/rebalsim/rebalsim/kafka"
)

func TestParseAssignment(t *testing.T) {
	for _, c := range []struct {
		in   string
		want kafka.Assignment // nil: an error
	}{
		{"-", kafka.Assignment{}},
		{"orders:0,1,2", kafka.Assignment{"orders": {0, 1, 2}}},
		// A range is inclusive at both ends, and parts are normalized.
		{"orders:3-5,0;payments:1", kafka.Assignment{"orders": {0, 3, 4, 5}, "payments": {1}}},
		{"orders", nil},
		{"orders:x", nil},
		{"orders:5-3", nil},
	} {
		got, err := ParseAssignment(c.in)
		switch {
		case c.want == nil && err == nil:
			t.Errorf("ParseAssignment(%q) = %v, want an error", c.in, got)
		case c.want != nil && (err != nil || !got.Equal(c.want)):
			t.Errorf("ParseAssignment(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// FuzzParseAssignment: whatever parses prints back to a string that parses
// to the same assignment, and nothing panics.
func FuzzParseAssignment(f *testing.F) {
	for _, s := range []string{"-", "orders:0,1", "orders:0-2;payments:7", "a:1-", ":", "t:9-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAssignment(s)
		if err != nil {
			return
		}
		back, err := ParseAssignment(Assignment(a))
		if err != nil || !back.Equal(a) {
			t.Fatalf("%q parses to %v, which prints as %q and parses to %v, %v", s, a, Assignment(a), back, err)
		}
	})
}
