package sim

import (
	"reflect"
	"testing"
	"time"
)

// TestDefaultsAreKafkas pins the defaults the settings table produces to
// Kafka's documented ones (reference §1.1, §1.2, §1.3), written out here
// as the oracle.
func TestDefaultsAreKafkas(t *testing.T) {
	want := ConsumerConfig{
		ClientID: "c1", GroupProtocol: "classic", Assignors: []string{"range", "cooperative-sticky"},
		SessionTimeout: 45 * time.Second, HeartbeatInterval: 3 * time.Second, MaxPollInterval: 5 * time.Minute,
		RequestTimeout: 30 * time.Second, RetryBackoff: 100 * time.Millisecond, EnableAutoCommit: true,
		AutoCommitInterval: 5 * time.Second, MetadataMaxAge: 5 * time.Minute, MaxPollRecords: 500,
		// rebalsim's own: what Kafka leaves to the application.
		ProcessingRate: 2000, CommitLatency: 5 * time.Millisecond,
		// close() with no options: CloseOptions' DEFAULT (KIP-1092).
		CloseMembership: "default",
	}
	if got := DefaultConsumerConfig("c1"); !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultConsumerConfig = %+v\nwant %+v", got, want)
	}
	wantGroup := GroupConfig{InitialRebalanceDelay: 3 * time.Second, HeartbeatInterval: 5 * time.Second,
		SessionTimeout: 45 * time.Second, Assignor: "uniform", MigrationPolicy: "bidirectional",
		MinSessionTimeout: 6 * time.Second, MaxSessionTimeout: 30 * time.Minute,
		// GroupCoordinatorConfig's consumer-protocol bounds.
		ConsumerMinSessionTimeout: 45 * time.Second, ConsumerMaxSessionTimeout: time.Minute,
		ConsumerMinHeartbeatInterval: 5 * time.Second, ConsumerMaxHeartbeatInterval: 15 * time.Second}
	if got := DefaultGroupConfig(); got != wantGroup {
		t.Errorf("DefaultGroupConfig = %+v\nwant %+v", got, wantGroup)
	}
	// Zero means the default, except for the initial delay, where it
	// means no delay. The assignment interval's default is the release's
	// (KIP-1263: 1s from 4.3, none before), and AssignmentIntervalOff is
	// off in any release.
	for _, tc := range []struct {
		release string
		set     time.Duration
		want    time.Duration
	}{
		{"", 0, time.Second}, {"4.3", 0, time.Second}, {"4.2", 0, 0}, {"4.0", 0, 0},
		{"4.3", AssignmentIntervalOff, 0}, {"4.0", 2 * time.Second, 2 * time.Second},
	} {
		want := GroupConfig{HeartbeatInterval: 5 * time.Second,
			SessionTimeout: 45 * time.Second, Assignor: "uniform", MigrationPolicy: "bidirectional",
			MinSessionTimeout: 6 * time.Second, MaxSessionTimeout: 30 * time.Minute, AssignmentInterval: tc.want,
			ConsumerMinSessionTimeout: 45 * time.Second, ConsumerMaxSessionTimeout: time.Minute,
			ConsumerMinHeartbeatInterval: 5 * time.Second, ConsumerMaxHeartbeatInterval: 15 * time.Second}
		if got := ResolveGroupConfigFor(GroupConfig{AssignmentInterval: tc.set}, tc.release); got != want {
			t.Errorf("ResolveGroupConfigFor(interval %s, %q) = %+v\nwant %+v", tc.set, tc.release, got, want)
		}
	}
}

func TestApplyLaysShorthandThenExplicitKeys(t *testing.T) {
	ptr := func(s string) *string { return &s }
	yes := true
	assignors := []string{"sticky"}
	st := 10 * time.Second
	for _, tc := range []struct {
		name string
		s    ConsumerSettings
		want func(c *ConsumerConfig)
	}{
		{"cooperative shorthand", ConsumerSettings{Protocol: ptr("cooperative")},
			func(c *ConsumerConfig) { c.Assignors = []string{"cooperative-sticky"} }},
		// The explicit key wins over the shorthand, whatever the order of
		// the fields in the literal.
		{"explicit assignors over the shorthand", ConsumerSettings{Protocol: ptr("eager"), Assignors: &assignors},
			func(c *ConsumerConfig) { c.Assignors = []string{"sticky"} }},
		{"nextgen keeps the assignors", ConsumerSettings{Protocol: ptr("nextgen")},
			func(c *ConsumerConfig) { c.GroupProtocol = "consumer" }},
		// group_instance_id comes after static, so it wins.
		{"static, then an instance id", ConsumerSettings{Static: &yes, GroupInstanceID: ptr("i-1")},
			func(c *ConsumerConfig) { c.GroupInstanceID = "i-1" }},
		{"static", ConsumerSettings{Static: &yes, SessionTimeout: &st},
			func(c *ConsumerConfig) { c.GroupInstanceID = "c1"; c.SessionTimeout = st }},
	} {
		got := DefaultConsumerConfig("c1")
		if err := tc.s.Apply(&got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := DefaultConsumerConfig("c1")
		tc.want(&want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v\nwant %+v", tc.name, got, want)
		}
	}
	c := DefaultConsumerConfig("c1")
	if err := (ConsumerSettings{Protocol: ptr("lazy")}).Apply(&c); err == nil {
		t.Error("an unknown shorthand applied without error")
	}
}

// TestTablesCoverEveryField keeps the tables and the structs in step: a
// field added to ConsumerSettings or GroupConfig without a row has no key,
// no default and no check.
func TestTablesCoverEveryField(t *testing.T) {
	if n, rows := reflect.TypeFor[ConsumerSettings]().NumField(), len(ConsumerSettingTable()); n != rows {
		t.Errorf("ConsumerSettings has %d fields, the table %d rows", n, rows)
	}
	if n, rows := reflect.TypeFor[GroupConfig]().NumField(), len(GroupSettingTable()); n != rows {
		t.Errorf("GroupConfig has %d fields, the table %d rows", n, rows)
	}
	// Each row reads and writes its own field: putting a value through
	// one row changes exactly one field.
	for _, row := range ConsumerSettingTable() {
		var cs ConsumerSettings
		row.Put(&cs, sample(row.Info().Kind))
		if v, ok := row.Value(&cs); !ok || !reflect.DeepEqual(v, sample(row.Info().Kind)) {
			t.Errorf("%s: put %v, read %v", row.Info().Key, sample(row.Info().Kind), v)
		}
		set := 0
		rv := reflect.ValueOf(cs)
		for i := range rv.NumField() {
			if !rv.Field(i).IsNil() {
				set++
			}
		}
		if set != 1 {
			t.Errorf("%s: put set %d fields", row.Info().Key, set)
		}
	}
}

func sample(k Kind) any {
	switch k {
	case KindStrings:
		return []string{"x"}
	case KindBool:
		return true
	case KindDuration:
		return time.Second
	case KindInt:
		return 7
	case KindNumber:
		return 1.5
	case KindDistribution:
		return Distribution{Kind: DistConstant, Value: time.Millisecond}
	}
	return "x"
}
