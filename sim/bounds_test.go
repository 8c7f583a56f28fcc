package sim

import (
	"strings"
	"testing"
	"time"
)

// TestConsumerGroupBoundsInGo: a scenario built in Go is held to the
// broker's consumer-protocol bounds as a file is: Run refuses a group
// session timeout below group.consumer.min.session.timeout.ms (45s by
// default) and names the bound, and runs once the bound is lowered.
func TestConsumerGroupBoundsInGo(t *testing.T) {
	if vs := ConsumerGroupBounds(ResolveGroupConfig(DefaultGroupConfig())); len(vs) != 0 {
		t.Fatalf("Kafka's defaults break their own bounds: %v", vs)
	}
	sc := &Scenario{Name: "short", Duration: time.Second, Topics: []TopicSpec{{Name: "t", Partitions: 1}},
		Members: []MemberSpec{{ID: "c1"}}, Group: DefaultGroupConfig()}
	sc.Group.SessionTimeout = 10 * time.Second
	_, err := Run(sc, nil, RunOptions{Protocol: ProtocolNextgen})
	if err == nil || !strings.Contains(err.Error(), "group.session_timeout 10s is below group.consumer_min_session_timeout 45s (group.consumer.min.session.timeout.ms)") {
		t.Fatalf("Run = %v, want the bound named", err)
	}
	sc.Group.ConsumerMinSessionTimeout = 10 * time.Second
	if vs := ConsumerGroupBounds(ResolveGroupConfigFor(sc.Group, sc.KafkaVersion)); len(vs) != 0 {
		t.Errorf("with the bound lowered: %v", vs)
	}
}
