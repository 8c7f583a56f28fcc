package fidelity

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// memberArgs is the member's resolved config as the Java client's own
// keys (key=value), which every client program reads; the assignors stay
// in the scenario's names.
func memberArgs(m Member) ([]string, error) {
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
		args = append(args, "partition.assignment.strategy="+strings.Join(cfg.Assignors, ","),
			ms("session.timeout.ms", cfg.SessionTimeout), ms("heartbeat.interval.ms", cfg.HeartbeatInterval))
	case "consumer":
		if cfg.RemoteAssignor != "" {
			args = append(args, "group.remote.assignor="+cfg.RemoteAssignor)
		}
	default:
		return nil, fmt.Errorf("member %s: group.protocol %q", cfg.ClientID, cfg.GroupProtocol)
	}
	return args, nil
}

// Command returns the Member program (fidelity/java), the assignors
// named by the Java client's classes.
func (c JavaClient) Command(m Member) (*exec.Cmd, error) {
	args, err := memberArgs(m)
	if err != nil {
		return nil, err
	}
	for i, a := range args {
		names, ok := strings.CutPrefix(a, "partition.assignment.strategy=")
		if !ok {
			continue
		}
		var classes []string
		for _, n := range strings.Split(names, ",") {
			cl, ok := javaAssignors[n]
			if !ok {
				return nil, fmt.Errorf("member %s: assignor %q has no Java class here (known: range, roundrobin, sticky, cooperative-sticky)", m.Config.ClientID, n)
			}
			classes = append(classes, cl)
		}
		args[i] = "partition.assignment.strategy=" + strings.Join(classes, ",")
	}
	cmd := c.Java.command("96m", "rebalsim.fidelity.Member", args...)
	cmd.Args = slices.Insert(cmd.Args, 1, rebalanceLogging("org.apache.kafka.clients.consumer.internals")...)
	return cmd, nil
}

// GoClient is a consumer implementation run by one of this module's Go
// member programs (built once into Binary), which take the Java client's
// keys: franz-go's kgo (cmd/kgomember) or librdkafka (cmd/rdkmember).
type GoClient struct{ Impl, Binary string }

func (c GoClient) Name() string { return c.Impl }

func (c GoClient) Command(m Member) (*exec.Cmd, error) {
	args, err := memberArgs(m)
	if err != nil {
		return nil, err
	}
	return exec.Command(c.Binary, args...), nil
}

// GoMembers maps each client that a Go member program runs to its package.
var GoMembers = map[string]string{
	"franz-go":   "./cmd/kgomember",
	"librdkafka": "./cmd/rdkmember",
}

// BuildGoMember builds the Go member program in pkg (a package of this
// module, such as ./cmd/kgomember) into dir and returns its path.
func BuildGoMember(moduleDir, pkg, dir string) (string, error) {
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = moduleDir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building %s: %w", pkg, err)
	}
	return out, nil
}
