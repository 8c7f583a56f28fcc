package member

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// The processed ranges are what Duplicates counts from, so a range must
// never span a gap in offsets or a partition change, and must be logged
// before a handover (Flush).
func TestProcessorLogsConsecutiveRangesOfAtMostFifty(t *testing.T) {
	var buf bytes.Buffer
	l := NewLog(&buf, "p-")
	p := NewProcessor(l, 0)
	for o := int64(0); o < 120; o++ { // 0-49, 50-99, 100-119: at most 50 a range
		p.Process(l.Part("p-orders", 1), o)
	}
	p.Process(l.Part("p-orders", 2), 7)
	p.Process(l.Part("p-orders", 1), 200) // a gap: a new range
	p.Flush()
	p.Flush() // nothing open: nothing more logged
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m struct {
			Ev, Part string
			From, To int64
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m.Ev+" "+m.Part+" "+strconv.FormatInt(m.From, 10)+"-"+strconv.FormatInt(m.To, 10))
	}
	want := []string{
		"processed orders-1 0-49", "processed orders-1 50-99",
		"processed orders-1 100-119", // closed by the gap to 200
		"processed orders-1 200-200", "processed orders-2 7-7",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseArgsRejectsAnArgumentWithoutEquals(t *testing.T) {
	a, err := ParseArgs([]string{"max.poll.records=500", "session.timeout.ms=6000"})
	if err != nil || a.Int("max.poll.records") != 500 || a.Ms("session.timeout.ms").Seconds() != 6 {
		t.Errorf("ParseArgs = %v, %v", a, err)
	}
	if _, err := ParseArgs([]string{"bootstrap.servers"}); err == nil {
		t.Error("ParseArgs accepted an argument with no =")
	}
}
