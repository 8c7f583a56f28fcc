package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"rnage", "range", 1}, {"abc", "", 3}, {"ca", "abc", 3}, {"sesion_timeout", "session_timeout", 1}, {"ab", "ba", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d; want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	keys := []string{"session_timeout", "heartbeat_interval", "max_poll_interval"}
	if got := Nearest("sesion_timeout", keys, nil, 4); got != "session_timeout" {
		t.Errorf("got %q", got)
	}
	if got := Nearest("completely_different", keys, nil, 4); got != "" {
		t.Errorf("got %q, want no suggestion", got)
	}
	upper := func(s string) string { return s + "_ms" }
	if got := Nearest("max_poll_interval_ms", keys, upper, 1); got != "max_poll_interval" {
		t.Errorf("with norm: got %q", got)
	}
	// Ties go to the earlier candidate.
	if got := Nearest("ab", []string{"ac", "bb"}, nil, 2); got != "ac" {
		t.Errorf("tie: got %q", got)
	}
}
