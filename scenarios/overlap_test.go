package scenarios

import (
	"testing"
	"time"
)

// TestOverlappingEvents: two events that would act on one member at once
// are refused, naming the line of each; base's members c1..c3 are on line
// 3 and events start on line 5.
func TestOverlappingEvents(t *testing.T) {
	checkRejections(t, []rejection{
		{"a leave during a pause", base + "events:\n  - {at: 10s, pause: {member: c1, for: 20s}}\n  - {at: 15s, leave: c1}\n", "t.yaml:6:5",
			[]string{"leave c1 at 15s overlaps the pause at line 5, which holds the member until 30s"}},
		{"a pause during a partition", base + "events:\n  - {at: 10s, network_partition: {members: [c1, c2], for: 20s}}\n  - {at: 15s, pause: {member: c2, for: 1s}}\n", "t.yaml:6:5",
			[]string{"pause c2 at 15s overlaps the network_partition at line 5, which holds the member until 30s"}},
		{"leave twice", base + "events:\n  - {at: 10s, leave: c2}\n  - {at: 20s, leave: c2}\n", "t.yaml:6:5",
			[]string{"leave c2 at 20s: the member is down (its leave, line 5); start it first"}},
		{"a pause of a crashed member", base + "events:\n  - {at: 10s, crash: c2}\n  - {at: 20s, pause: {member: c2, for: 1s}}\n", "t.yaml:6:5",
			[]string{"pause c2 at 20s: the member is down (its crash, line 5)"}},
		{"a start of a running member", base + "events:\n  - {at: 10s, start: c3}\n", "t.yaml:5:5",
			[]string{"start c3: the member is already running (it runs from the start, line 3)"}},
		{"a start during a restart", base + "events:\n  - {at: 10s, restart: {member: c1, down: 10s}}\n  - {at: 15s, start: c1}\n", "t.yaml:6:5",
			[]string{"start c1: the member is already running (restart, line 5)"}},
		{"a crash before the member starts", "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers: [{id: c1}, {id: late, start: 1m}]\nevents:\n  - {at: 10s, crash: late}\n", "t.yaml:5:5",
			[]string{"crash late at 10s: the member is down (it starts at 1m, line 3)"}},
		{"a subscription change during a stall", base + "events:\n  - {at: 10s, stall: {member: c2, for: 1m}}\n  - {at: 20s, subscribe: {members: all, topics: [orders]}}\n", "t.yaml:6:5",
			[]string{"subscribe c2 at 20s overlaps the stall at line 5, which holds the member until 1m10s"}},
		{"a horizon of 1ns", "duration: 1ns\ntopics: [{name: orders, partitions: 12}]\nmembers: [{id: c1}]\n", "t.yaml:1:11",
			[]string{"duration must be at least 1s, found 1ns"}},
		{"interval 0s", base + "events:\n  - {at: 10s, rolling_restart: {members: all, interval: 0s}}\n", "t.yaml:5:57",
			[]string{"a rolling restart of 3 members needs a positive interval, found 0s", "restart: {members: [...], down: ...}"}},
	})
}

// TestOverlapMeanings: what is not an overlap. A restart of a member that
// is down starts it after its down time (a rolling restart of members:
// all brings back a member that crashed before it), a crash or a restart
// ends a pause or a stall (kill -9 of a frozen process, the restart of a
// stuck one), a start follows a leave, and a disturbance may begin the
// instant the one before ends.
func TestOverlapMeanings(t *testing.T) {
	s := mustParse(t, base+`events:
  - {at: 10s, crash: c1}
  - {at: 15s, stall: {member: c2, for: 5m}}
  - {at: 20s, rolling_restart: {members: all, interval: 10s, down: 5s}}
  - {at: 1m, leave: c2}
  - {at: 70s, start: c2}
  - {at: 80s, pause: {member: c3, for: 10s}}
  - {at: 85s, crash: c3}
  - {at: 90s, start: c3}
  - {at: 95s, pause: {member: c3, for: 10s}}
  - {at: 105s, stall: {member: c3, for: 10s}}
`)
	if len(s.Events) != 10 || s.Events[9].At != 105*time.Second {
		t.Errorf("events = %+v", s.Events)
	}
}
