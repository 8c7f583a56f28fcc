package fidelity

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/rebalsim/rebalsim/sim"
)

// Member is what a client needs to start one member incarnation.
type Member struct {
	Bootstrap string
	Group     string
	// Topics are the real topic names the member subscribes to; Prefix
	// is what the real names add to the scenario's.
	Topics []string
	Prefix string
	Config sim.ConsumerConfig
}

// Client starts member processes of one consumer implementation. Every
// client's process speaks the same protocol: it prints {"ev":"waiting"},
// waits for a line "go" on standard input, then creates its consumer and
// logs callbacks, generations and processed offsets as JSON lines on
// standard output (see java/src/main/java/rebalsim/fidelity/Member.java).
type Client interface {
	Name() string
	Command(m Member) (*exec.Cmd, error)
}

// JavaClient is Apache Kafka's KafkaConsumer, the client the simulator models.
type JavaClient struct{ Java *Java }

func (JavaClient) Name() string { return "java" }

// javaAssignors maps the scenario's assignor names to the Java client's classes.
var javaAssignors = map[string]string{
	"range":              "org.apache.kafka.clients.consumer.RangeAssignor",
	"roundrobin":         "org.apache.kafka.clients.consumer.RoundRobinAssignor",
	"sticky":             "org.apache.kafka.clients.consumer.StickyAssignor",
	"cooperative-sticky": "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
}

// Command returns the Member program with the member's resolved config as
// the Java client's own keys.
func (c JavaClient) Command(m Member) (*exec.Cmd, error) {
	cfg := m.Config
	ms := func(k string, d interface{ Milliseconds() int64 }) string {
		return fmt.Sprintf("%s=%d", k, d.Milliseconds())
	}
	args := []string{
		"bootstrap.servers=" + m.Bootstrap,
		"group.id=" + m.Group,
		"client.id=" + cfg.ClientID,
		"group.protocol=" + cfg.GroupProtocol,
		"auto.offset.reset=earliest",
		ms("max.poll.interval.ms", cfg.MaxPollInterval),
		ms("request.timeout.ms", cfg.RequestTimeout),
		ms("retry.backoff.ms", cfg.RetryBackoff),
		fmt.Sprintf("enable.auto.commit=%t", cfg.EnableAutoCommit),
		ms("auto.commit.interval.ms", cfg.AutoCommitInterval),
		ms("metadata.max.age.ms", cfg.MetadataMaxAge),
		fmt.Sprintf("max.poll.records=%d", cfg.MaxPollRecords),
		"rebalsim.topics=" + strings.Join(m.Topics, ","),
		"rebalsim.topic.prefix=" + m.Prefix,
		fmt.Sprintf("rebalsim.processing.rate=%g", cfg.ProcessingRate),
		ms("rebalsim.revoke.ms", cfg.RevokeCallback),
		ms("rebalsim.assign.ms", cfg.AssignCallback),
		ms("rebalsim.lost.ms", cfg.LostCallback),
	}
	if cfg.GroupInstanceID != "" {
		args = append(args, "group.instance.id="+cfg.GroupInstanceID)
	}
	switch cfg.GroupProtocol {
	case "classic":
		// The consumer protocol's client rejects these keys: the broker
		// owns its timeouts and assignor.
		var classes []string
		for _, a := range cfg.Assignors {
			cl, ok := javaAssignors[a]
			if !ok {
				return nil, fmt.Errorf("member %s: assignor %q has no Java class here (known: range, roundrobin, sticky, cooperative-sticky)", cfg.ClientID, a)
			}
			classes = append(classes, cl)
		}
		args = append(args, "partition.assignment.strategy="+strings.Join(classes, ","),
			ms("session.timeout.ms", cfg.SessionTimeout), ms("heartbeat.interval.ms", cfg.HeartbeatInterval))
	case "consumer":
		if cfg.RemoteAssignor != "" {
			args = append(args, "group.remote.assignor="+cfg.RemoteAssignor)
		}
	default:
		return nil, fmt.Errorf("member %s: group.protocol %q", cfg.ClientID, cfg.GroupProtocol)
	}
	return c.Java.command("96m", "rebalsim.fidelity.Member", args...), nil
}
