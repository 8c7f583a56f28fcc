package fidelity

import (
	"fmt"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rebalsim/rebalsim/sim"
)

// runnable lists the scenario events a real run can apply, and how.
var runnable = map[sim.EventKind]string{
	sim.EventStart:          "a new consumer process",
	sim.EventLeave:          "SIGTERM, and the consumer's close()",
	sim.EventCrash:          "SIGKILL",
	sim.EventPause:          "SIGSTOP, then SIGCONT",
	sim.EventRestart:        "SIGTERM or SIGKILL, then a new process",
	sim.EventRollingRestart: "restarts one by one",
}

// SubsetError is a part of a scenario that cannot be run for real.
type SubsetError struct {
	Source string
	Line   int
	Key    string
	Why    string
}

func (e *SubsetError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.Source, e.Line, e.Key, e.Why)
}

// CheckSubset returns the first part of sc that a real run cannot
// reproduce: an event other than start, leave, crash, pause, restart and
// rolling_restart; a network model (the real network is the loopback); a
// commit latency (the real one is what the broker takes); a kafka_version
// with no real release (Releases).
func CheckSubset(sc *sim.Scenario) error {
	src, _ := os.ReadFile(sc.Source)
	fail := func(line int, key, why string) error {
		return &SubsetError{Source: sc.Source, Line: line, Key: key, Why: why}
	}
	if _, err := Release(sc); err != nil {
		return err
	}
	for _, ev := range sc.Events {
		if _, ok := runnable[ev.Kind]; !ok {
			return fail(ev.Line, "events."+string(ev.Kind),
				"cannot be run on a real broker (a real run supports start, leave, crash, pause, restart and rolling_restart)")
		}
	}
	if line := keyLine(src, "network"); line > 0 {
		return fail(line, "network", "a real run's network is the loopback interface; remove the network model to run it for real")
	}
	check := func(where string, s sim.ConsumerSettings, line int) error {
		if s.CommitLatency != nil {
			return fail(line, where+".commit_latency", "a real commit takes what the broker takes; remove it to run for real")
		}
		return nil
	}
	if err := check("defaults", sc.Defaults, keyLine(src, "defaults", "commit_latency")); err != nil {
		return err
	}
	for _, m := range sc.Members {
		if err := check("members."+m.ID, m.Settings, m.Line); err != nil {
			return err
		}
	}
	for _, ev := range sc.Events {
		if err := check("events.set", ev.Set, ev.Line); err != nil {
			return err
		}
	}
	return nil
}

// keyLine is the line of the mapping key at path in the YAML src, 0 if
// there is none.
func keyLine(src []byte, path ...string) int {
	var root yaml.Node
	if yaml.Unmarshal(src, &root) != nil || len(root.Content) == 0 {
		return 0
	}
	n := root.Content[0]
	line := 0
	for _, key := range path {
		found := false
		for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line, n, found = n.Content[i].Line, n.Content[i+1], true
				break
			}
		}
		if !found {
			return 0
		}
	}
	return line
}

// Timings names a set of timeouts a comparison runs at.
type Timings string

const (
	// TimingsShort: session 6 s, heartbeat 500 ms, for both protocols, and
	// the consumer protocol's broker bounds lowered to allow them, so
	// that failure detection fits in a CI run.
	TimingsShort Timings = "short"
	// TimingsDefault: the scenario's own settings, Kafka's defaults where
	// it says nothing.
	TimingsDefault Timings = "default"
)

// Short timings, written once: realrun, the broker's bounds and
// FIDELITY.md all follow them.
const (
	ShortSessionTimeout    = 6 * time.Second
	ShortHeartbeatInterval = 500 * time.Millisecond
)

// ParseTimings checks a --timings value.
func ParseTimings(s string) (Timings, error) {
	switch t := Timings(strings.ToLower(s)); t {
	case TimingsShort, TimingsDefault:
		return t, nil
	}
	return "", fmt.Errorf("--timings %q: want short or default", s)
}

// ApplyTimings returns sc with t's timeouts in its defaults and group
// block (members' own settings still win, as in the simulator), and with
// a rebalance listener registered: every real member registers one, to
// log its callbacks, and under the consumer protocol a listener makes the
// client run revocations and acknowledge them only from poll().
func ApplyTimings(sc *sim.Scenario, t Timings) *sim.Scenario {
	out := *sc
	if out.Defaults.RebalanceListener == nil {
		listener := true
		out.Defaults.RebalanceListener = &listener
	}
	if t != TimingsShort {
		return &out
	}
	session, heartbeat := ShortSessionTimeout, ShortHeartbeatInterval
	out.Defaults.SessionTimeout = &session
	out.Defaults.HeartbeatInterval = &heartbeat
	out.Group.SessionTimeout = session
	out.Group.HeartbeatInterval = heartbeat
	// The broker's lower bounds come down to match (brokerProps), so the
	// simulator's group must say so too, or it refuses the configuration
	// as Kafka's GroupCoordinatorConfig would.
	g := sim.ResolveGroupConfig(out.Group)
	out.Group.ConsumerMinSessionTimeout = min(g.ConsumerMinSessionTimeout, session)
	out.Group.ConsumerMinHeartbeatInterval = min(g.ConsumerMinHeartbeatInterval, heartbeat)
	return &out
}
