package fidelity

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/rebalsim/rebalsim/sim"
)

// Broker is one running Kafka node in KRaft combined mode (broker and
// controller in one process) listening on 127.0.0.1 only.
type Broker struct {
	Bootstrap string
	Props     map[string]string
	proc      *child
	dir       string
}

// BrokerProps are the broker settings for group g: the group
// coordinator's (GroupCoordinatorConfig) from the scenario, and bounds
// widened so that every member's and the group's own values are allowed.
func BrokerProps(g sim.GroupConfig) map[string]string {
	g = sim.ResolveGroupConfig(g)
	ms := func(d time.Duration) string { return fmt.Sprint(d.Milliseconds()) }
	assignors := "uniform,range"
	if g.Assignor == "range" {
		assignors = "range,uniform"
	}
	p := map[string]string{
		"group.initial.rebalance.delay.ms":      ms(g.InitialRebalanceDelay),
		"group.min.session.timeout.ms":          ms(g.MinSessionTimeout),
		"group.max.session.timeout.ms":          ms(g.MaxSessionTimeout),
		"group.consumer.heartbeat.interval.ms":  ms(g.HeartbeatInterval),
		"group.consumer.session.timeout.ms":     ms(g.SessionTimeout),
		"group.consumer.assignors":              assignors,
		"group.consumer.migration.policy":       g.MigrationPolicy,
		"group.consumer.assignment.interval.ms": ms(g.AssignmentInterval),
		// Kafka's bounds (45 s to 60 s for the session, 5 s to 15 s for the
		// heartbeat) would reject short timings: they are lowered to, or
		// raised to, the group's own values.
		"group.consumer.min.session.timeout.ms":     ms(min(g.SessionTimeout, 45*time.Second)),
		"group.consumer.max.session.timeout.ms":     ms(max(g.SessionTimeout, 60*time.Second)),
		"group.consumer.min.heartbeat.interval.ms":  ms(min(g.HeartbeatInterval, 5*time.Second)),
		"group.consumer.max.heartbeat.interval.ms":  ms(max(g.HeartbeatInterval, 15*time.Second)),
		"group.consumer.min.assignment.interval.ms": "0",
	}
	if g.MaxSize > 0 {
		p["group.max.size"] = fmt.Sprint(g.MaxSize)
		p["group.consumer.max.size"] = fmt.Sprint(g.MaxSize)
	}
	return p
}

// StartBroker formats a fresh log directory under dir with Kafka's own
// StorageTool and starts kafka.Kafka on two free loopback ports. The
// process is in its own process group and dies with the runner.
func StartBroker(ctx context.Context, sup *Supervisor, j *Java, dir string, group map[string]string) (*Broker, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := os.RemoveAll(data); err != nil {
		return nil, err
	}
	props := map[string]string{
		"process.roles":                            "broker,controller",
		"node.id":                                  "1",
		"controller.quorum.voters":                 fmt.Sprintf("1@127.0.0.1:%d", ports[1]),
		"listeners":                                fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", ports[0], ports[1]),
		"advertised.listeners":                     fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", ports[0]),
		"controller.listener.names":                "CONTROLLER",
		"listener.security.protocol.map":           "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"log.dirs":                                 data,
		"num.partitions":                           "1",
		"offsets.topic.replication.factor":         "1",
		"offsets.topic.num.partitions":             "1",
		"transaction.state.log.replication.factor": "1",
		"transaction.state.log.min.isr":            "1",
		"auto.create.topics.enable":                "false",
	}
	for k, v := range group {
		props[k] = v
	}
	path := filepath.Join(dir, "server.properties")
	if err := writeProps(path, props); err != nil {
		return nil, err
	}
	clusterID, err := newClusterID()
	if err != nil {
		return nil, err
	}
	format := j.command("256m", "kafka.tools.StorageTool", "format", "-t", clusterID, "-c", path)
	if out, err := format.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("formatting the broker's storage: %w\n%s", err, out)
	}
	logf, err := os.Create(filepath.Join(dir, "broker.log"))
	if err != nil {
		return nil, err
	}
	// The start-up line and the group coordinator's steps are INFO;
	// everything else of the broker stays at WARN.
	cmd := j.command("512m", "kafka.Kafka", path)
	cmd.Args = slices.Insert(cmd.Args, 1, rebalanceLogging("kafka.server.KafkaRaftServer", "org.apache.kafka.coordinator.group")...)
	cmd.Stdout, cmd.Stderr = logf, logf
	proc, err := sup.start(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting the broker: %w", err)
	}
	b := &Broker{Bootstrap: fmt.Sprintf("127.0.0.1:%d", ports[0]), Props: props, proc: proc, dir: dir}
	if err := b.waitStarted(ctx, filepath.Join(dir, "broker.log")); err != nil {
		b.Stop()
		return nil, err
	}
	return b, nil
}

// waitStarted waits for the broker's "Kafka Server started" line.
func (b *Broker) waitStarted(ctx context.Context, log string) error {
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if f, err := os.Open(log); err == nil {
			s := bufio.NewScanner(f)
			s.Buffer(make([]byte, 1<<20), 1<<20)
			for s.Scan() {
				if strings.Contains(s.Text(), "Kafka Server started") {
					f.Close()
					return nil
				}
			}
			f.Close()
		}
		if b.proc.exited() {
			return fmt.Errorf("the broker exited during start-up; see %s", log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("the broker did not start within 90s; see %s", log)
}

// Stop kills the broker's process group.
func (b *Broker) Stop() {
	if b != nil && b.proc != nil {
		b.proc.signal(syscall.SIGKILL)
		b.proc.wait()
	}
}

func writeProps(path string, props map[string]string) error {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, props[k])
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// freePorts asks the kernel for n free loopback ports.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// newClusterID draws a random Kafka UUID in its base64 form. An id that
// starts with '-' is drawn again, as Kafka's own Uuid.randomUuid does:
// the storage tool's argument parser would read "-t -abc..." as a
// missing value followed by an unknown option, and formatting fails.
func newClusterID() (string, error) {
	id := make([]byte, 16)
	for {
		if _, err := rand.Read(id); err != nil {
			return "", fmt.Errorf("drawing a cluster id: %w", err)
		}
		if s := base64.RawURLEncoding.EncodeToString(id); !strings.HasPrefix(s, "-") {
			return s, nil
		}
	}
}
