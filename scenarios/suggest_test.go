package scenarios

import (
	"strings"
	"testing"

	"github.com/rebalsim/rebalsim/protocols"
)

func TestNearest(t *testing.T) {
	keys := settingKeys()
	for _, tc := range []struct {
		word       string
		candidates []string
		strip      []string
		want       string
	}{
		{"sesion_timeout", keys, nil, "session_timeout"},
		{"sessiontimeout", keys, nil, "session_timeout"},
		{"session.timeout.ms", keys, nil, "session_timeout"},
		{"SESSION-TIMEOUT", keys, nil, "session_timeout"},
		{"max.poll.interval.ms", keys, nil, "max_poll_interval"},
		{"partition.assignment.strategy", keys, nil, "assignors"},
		{"group.remote.assignor", keys, nil, "remote_assignor"},
		{"group.initial.rebalance.delay.ms", groupKeys(), []string{"group_consumer_", "group_"}, "initial_rebalance_delay"},
		{"group.consumer.session.timeout.ms", groupKeys(), []string{"group_consumer_", "group_"}, "session_timeout"},
		{"rnage", protocols.Default().Names().ClientAssignors, nil, "range"},
		{"c9", []string{"c1", "c2"}, nil, "c1"}, // ties go to the earlier candidate
		{"zebra", keys, nil, ""},
		{"x", []string{"y"}, nil, "y"},
		{strings.Repeat("a", 200), []string{strings.Repeat("a", 199)}, nil, ""},
	} {
		if got := nearest(tc.word, tc.candidates, tc.strip...); got != tc.want {
			t.Errorf("nearest(%q) = %q; want %q", tc.word, got, tc.want)
		}
	}
}

func TestFormatting(t *testing.T) {
	for in, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 2000000: "2,000,000", -1234: "-1,234"} {
		if got := grouped(in); got != want {
			t.Errorf("grouped(%d) = %q; want %q", in, got, want)
		}
	}
	if got := short(strings.Repeat("é", 30)); !strings.HasSuffix(got, "…") || len(got) > 44 {
		t.Errorf("short cut a UTF-8 sequence or kept too much: %q", got)
	}
}
