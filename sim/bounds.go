package sim

import (
	"fmt"
	"time"
)

// BoundViolation is a consumer-protocol session timeout or heartbeat
// interval outside the broker's bounds, or a pair of bounds out of order:
// GroupCoordinatorConfig's constructor requires min ≤ value ≤ max for
// group.consumer.session.timeout.ms and group.consumer.heartbeat.interval.ms,
// and the broker does not start otherwise. Key is the setting found out
// of bounds and Bound the one it breaks, both by their scenario keys
// under group.
type BoundViolation struct {
	Key, Bound   string
	Value, Limit time.Duration
	// Below tells whether Value is below Limit (else above it).
	Below bool
}

func (v BoundViolation) Error() string {
	rel := "above"
	if v.Below {
		rel = "below"
	}
	return fmt.Sprintf("group.%s %s is %s group.%s %s (%s): Kafka's broker refuses the configuration (GroupCoordinatorConfig); set group.%s too",
		v.Key, Format(v.Value), rel, v.Bound, Format(v.Limit), groupKafkaName(v.Bound), v.Bound)
}

// ConsumerGroupBounds checks a resolved group configuration against the
// consumer protocol's bounds, in the order GroupCoordinatorConfig checks
// them.
func ConsumerGroupBounds(g GroupConfig) []BoundViolation {
	var out []BoundViolation
	check := func(key string, v time.Duration, bound string, limit time.Duration, below bool) {
		if (below && v < limit) || (!below && v > limit) {
			out = append(out, BoundViolation{Key: key, Bound: bound, Value: v, Limit: limit, Below: below})
		}
	}
	// A pair of bounds out of order is the one thing said about it.
	pair := func(value string, v time.Duration, minKey string, lo time.Duration, maxKey string, hi time.Duration) {
		if hi < lo {
			check(maxKey, hi, minKey, lo, true)
			return
		}
		check(value, v, minKey, lo, true)
		check(value, v, maxKey, hi, false)
	}
	pair("heartbeat_interval", g.HeartbeatInterval, "consumer_min_heartbeat_interval", g.ConsumerMinHeartbeatInterval, "consumer_max_heartbeat_interval", g.ConsumerMaxHeartbeatInterval)
	pair("session_timeout", g.SessionTimeout, "consumer_min_session_timeout", g.ConsumerMinSessionTimeout, "consumer_max_session_timeout", g.ConsumerMaxSessionTimeout)
	return out
}

// groupKafkaName is a group setting's Kafka name.
func groupKafkaName(key string) string {
	for _, row := range groupSettingTable() {
		if info := row.Info(); info.Key == key {
			return info.Kafka
		}
	}
	return key
}
