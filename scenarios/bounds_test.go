package scenarios

import "testing"

// TestConsumerGroupBounds: the broker refuses a consumer-protocol session
// timeout or heartbeat interval outside group.consumer.min/max.*
// (GroupCoordinatorConfig's constructor; the defaults 45s-60s and 5s-15s
// are the same in Kafka 4.0's source and the 4.3.1 jar), so a file that
// sets one outside them is an error at the value, naming the bound and
// its Kafka name; lowering the bound admits it.
func TestConsumerGroupBounds(t *testing.T) {
	checkRejections(t, []rejection{
		{"session below the minimum", base + "group: {session_timeout: 10s}\n", "t.yaml:4:26",
			[]string{"group.session_timeout 10s is below group.consumer_min_session_timeout 45s", "group.consumer.min.session.timeout.ms"}},
		{"session above the maximum", base + "group: {session_timeout: 2m}\n", "t.yaml:4:26",
			[]string{"group.session_timeout 2m0s is above group.consumer_max_session_timeout 1m0s", "group.consumer.max.session.timeout.ms"}},
		{"heartbeat below the minimum", base + "group: {heartbeat_interval: 1s}\n", "t.yaml:4:29",
			[]string{"group.heartbeat_interval 1s is below group.consumer_min_heartbeat_interval 5s", "group.consumer.min.heartbeat.interval.ms"}},
		{"heartbeat above the maximum", base + "group: {heartbeat_interval: 20s}\n", "t.yaml:4:29",
			[]string{"group.heartbeat_interval 20s is above group.consumer_max_heartbeat_interval 15s"}},
		// A bound that moves past the default value is reported where it
		// was written.
		{"minimum raised past the default", base + "group: {consumer_min_session_timeout: 50s}\n", "t.yaml:4:39",
			[]string{"group.session_timeout 45s is below group.consumer_min_session_timeout 50s"}},
		{"bounds out of order", base + "group: {consumer_min_heartbeat_interval: 5s, consumer_max_heartbeat_interval: 2s}\n", "t.yaml:4:79",
			[]string{"group.consumer_max_heartbeat_interval 2s is below group.consumer_min_heartbeat_interval 5s"}},
	})
	// Lowered bounds admit short timings.
	s := mustParse(t, base+"group: {session_timeout: 6s, heartbeat_interval: 500ms, consumer_min_session_timeout: 6s, consumer_min_heartbeat_interval: 500ms}\n")
	if s.Group.SessionTimeout.Seconds() != 6 {
		t.Errorf("session_timeout %s, want 6s", s.Group.SessionTimeout)
	}
}
