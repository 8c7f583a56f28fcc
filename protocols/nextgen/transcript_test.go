package nextgen

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/internal/transcript"
	"github.com/rebalsim/rebalsim/sim"
)

// Transcript tests, in the style of raft's interaction tests
// (github.com/cockroachdb/datadriven): each file of testdata/coordinator
// and testdata/client is a sequence of commands, each followed by every
// effect it produced. `go test -rewrite` regenerates the expectations;
// review the diff like code.

// fmtMessage prints the consumer protocol's messages, and classic ones as
// every transcript does.
func fmtMessage(m sim.Message) string {
	switch r := m.(type) {
	case *ConsumerGroupHeartbeatRequest:
		s := fmt.Sprintf("ConsumerGroupHeartbeat member=%s epoch=%d", transcript.OrDash(r.MemberID), r.MemberEpoch) + transcript.Opt("instance", r.InstanceID)
		if r.RebalanceTimeoutMs != -1 {
			s += fmt.Sprintf(" rt=%d", r.RebalanceTimeoutMs)
		}
		if r.SubscribedTopicNames != nil {
			s += " topics=" + strings.Join(r.SubscribedTopicNames, ",")
		}
		s += transcript.Opt("assignor", r.ServerAssignor)
		if r.TopicPartitions != nil {
			s += " owned=" + transcript.Assignment(r.TopicPartitions)
		}
		return s
	case *ConsumerGroupHeartbeatResponse:
		s := fmt.Sprintf("ConsumerGroupHeartbeatResponse %s member=%s epoch=%d", r.ErrorCode, transcript.OrDash(r.MemberID), r.MemberEpoch)
		if r.ErrorCode == None {
			s += fmt.Sprintf(" interval=%d assignment=%s", r.HeartbeatIntervalMs, transcript.Assignment(r.Assignment))
		}
		return s
	}
	return transcript.Message(m)
}

// --- the coordinator transcript ---

// coordHarness drives a Coordinator with a fake clock, keeping its timers.
type coordHarness struct {
	c        *Coordinator
	now      time.Duration
	metadata []kafka.Topic
	timers   transcript.Timers
	// release is the Kafka release the broker runs.
	release string
}

func (h *coordHarness) env() sim.CoordinatorEnv {
	return sim.CoordinatorEnv{Now: h.now, Metadata: h.metadata, Release: h.release}
}

// apply prints the effects and keeps the timers.
func (h *coordHarness) apply(out *sim.Effects) []string {
	var lines []string
	for _, n := range out.Notes {
		lines = append(lines, transcript.Note(n))
	}
	for _, s := range out.Sends {
		lines = append(lines, s.To.Process+" <- "+fmtMessage(s.Msg))
	}
	return append(lines, h.timers.Apply("", out.Timers)...)
}

func (h *coordHarness) receive(from string, msg sim.Message) []string {
	out := &sim.Effects{}
	h.c.Receive(h.env(), sim.Endpoint{Process: from, Incarnation: 1}, msg, out)
	return h.apply(out)
}

// advance moves the clock, firing due timers in time order (ties by name).
func (h *coordHarness) advance(d time.Duration) []string {
	return h.timers.Advance(&h.now, d, func(_ string, id sim.TimerID) []string {
		out := &sim.Effects{}
		h.c.Timer(h.env(), id, out)
		return h.apply(out)
	})
}

// newGroupConfig reads new-group's arguments over Kafka's broker defaults.
func newGroupConfig(t *testing.T, d *datadriven.TestData) sim.GroupConfig {
	cfg := sim.DefaultGroupConfig()
	a := transcript.NewArgs(t, d)
	for _, arg := range d.CmdArgs {
		switch arg.Key {
		case "initial_rebalance_delay":
			cfg.InitialRebalanceDelay = a.Dur(arg.Key, 0)
		case "heartbeat_interval":
			cfg.HeartbeatInterval = a.Dur(arg.Key, 0)
		case "session_timeout":
			cfg.SessionTimeout = a.Dur(arg.Key, 0)
		case "assignment_interval":
			cfg.AssignmentInterval = a.Dur(arg.Key, 0)
		case "assignor":
			cfg.Assignor = a.Str(arg.Key, "")
		case "migration_policy":
			cfg.MigrationPolicy = a.Str(arg.Key, "")
		case "max_size":
			cfg.MaxSize = int(a.Int32(arg.Key, 0))
		case "release":
		default:
			d.Fatalf(t, "new-group: unknown setting %q (known: initial_rebalance_delay, heartbeat_interval, session_timeout, assignment_interval, assignor, migration_policy, max_size, release)", arg.Key)
		}
	}
	return cfg
}

// do runs one command of a coordinator transcript.
func (h *coordHarness) do(t *testing.T, d *datadriven.TestData) string {
	a := transcript.NewArgs(t, d)
	if d.Cmd != "new-group" && h.c == nil {
		d.Fatalf(t, "%s: no group yet; a transcript starts with new-group", d.Cmd)
	}
	switch d.Cmd {
	case "new-group":
		// new-group [initial_rebalance_delay=<dur>] [heartbeat_interval=<dur>]
		//   [session_timeout=<dur>] [assignment_interval=<dur>] [assignor=<name>]
		//   [migration_policy=<policy>] [max_size=<n>] [release=<4.N>]
		// Example: new-group migration_policy=disabled
		// A coordinator over Kafka's broker defaults, with the settings
		// given (the scenario file's group keys), and topic orders with 6
		// partitions. The broker runs Kafka 4.0 unless release says
		// otherwise: the transcripts follow 4.0's GroupMetadataManager.
		h.c = NewCoordinator(newGroupConfig(t, d))
		h.release = a.Str("release", "4.0")
		h.metadata = []kafka.Topic{{Name: "orders", Partitions: 6}}
		return ""
	case "hb":
		// hb <process> member=<id> epoch=<n> [instance=<id>] [rt=<ms>]
		//   [topics=a,b] [owned=t:0,1|-] [assignor=<name>]
		// Example: hb c1 member=- epoch=0
		// A ConsumerGroupHeartbeat; at epoch 0 the fields a join needs
		// default to a full join (rt=300000, topics=orders, owned=-).
		epoch := a.Int32("epoch", 0)
		req := &ConsumerGroupHeartbeatRequest{MemberID: strings.TrimPrefix(a.Str("member", ""), "-"), MemberEpoch: epoch,
			InstanceID: a.Str("instance", ""), RebalanceTimeoutMs: a.Int32("rt", -1), SubscribedTopicNames: a.List("topics"),
			ServerAssignor: a.Str("assignor", ""), TopicPartitions: a.Assignment("owned")}
		if epoch == 0 {
			if req.RebalanceTimeoutMs == -1 {
				req.RebalanceTimeoutMs = 300000
			}
			if req.SubscribedTopicNames == nil {
				req.SubscribedTopicNames = []string{"orders"}
			}
			if req.TopicPartitions == nil {
				req.TopicPartitions = kafka.Assignment{}
			}
		}
		return transcript.Lines(h.receive(a.Pos(0), req))
	case "join":
		// join <process> member=<id> [instance=<id>] [owned=t:0,1] [gen=<n>]
		//   [protocols=a,b] [session=<dur>] [rebalance=<dur>]
		// Example: join c1 member=- protocols=cooperative-sticky
		// A classic JoinGroup subscribed to orders; protocols default to
		// cooperative-sticky, session to 45s, rebalance to 5m.
		protocols := a.List("protocols")
		if protocols == nil {
			protocols = []string{"cooperative-sticky"}
		}
		sub := classic.Subscription{Topics: []string{"orders"}, Owned: a.Assignment("owned"), Generation: a.Int32("gen", -1)}
		req := &classic.JoinGroupRequest{ClientID: a.Pos(0), MemberID: strings.TrimPrefix(a.Str("member", ""), "-"), GroupInstanceID: a.Str("instance", ""),
			SessionTimeout: a.Dur("session", 45*time.Second), RebalanceTimeout: a.Dur("rebalance", 5*time.Minute)}
		for _, p := range protocols {
			req.Protocols = append(req.Protocols, classic.ProtocolMetadata{Name: p, Metadata: sub})
		}
		return transcript.Lines(h.receive(a.Pos(0), req))
	case "sync":
		// sync <process> member=<id> gen=<n> [instance=<id>] [assign=<member>=t:0,1/...]
		// Example: sync c1 member=c1-1 gen=1 assign=c1-1=orders:0-2/c2-2=orders:3-5
		// A classic SyncGroup; the leader's carries the assignments.
		req := &classic.SyncGroupRequest{MemberID: a.Str("member", ""), GroupInstanceID: a.Str("instance", ""), Generation: a.Int32("gen", -1)}
		if v, ok := d.Arg("assign"); ok {
			req.Assignments = map[string]kafka.Assignment{}
			for _, part := range strings.Split(v.SingleVal(t), "/") {
				id, as, _ := strings.Cut(part, "=")
				req.Assignments[id] = a.ParseAssignment(as)
			}
		}
		return transcript.Lines(h.receive(a.Pos(0), req))
	case "commit":
		// commit <process> member=<id> epoch=<n> [instance=<id>] parts=t:0,1
		// Example: commit c1 member=c1-1 epoch=2 parts=orders:0,1
		// An OffsetCommit with the member epoch (or classic generation)
		// the client knows.
		req := sim.OffsetCommit{MemberID: a.Str("member", ""), GroupInstanceID: a.Str("instance", ""), GenerationIDOrMemberEpoch: a.Int32("epoch", -1),
			Partitions: a.Assignment("parts").Partitions()}
		return transcript.Lines(h.receive(a.Pos(0), req))
	case "classic-hb":
		// classic-hb <process> member=<id> gen=<n> [instance=<id>]
		// Example: classic-hb c1 member=c1-1 gen=1
		// A classic Heartbeat.
		return transcript.Lines(h.receive(a.Pos(0), &classic.HeartbeatRequest{MemberID: a.Str("member", ""), GroupInstanceID: a.Str("instance", ""), Generation: a.Int32("gen", -1)}))
	case "leave":
		// leave <process> member=<id> [instance=<id>]
		// Example: leave c2 member=c2-2
		// A classic LeaveGroup.
		return transcript.Lines(h.receive(a.Pos(0), &classic.LeaveGroupRequest{MemberID: a.Str("member", ""), GroupInstanceID: a.Str("instance", "")}))
	case "tick":
		// tick <duration>
		// Example: tick 45s
		// Advances the clock, firing the timers due on the way in time
		// order.
		return transcript.Lines(h.advance(a.PosDur(0)))
	case "metadata":
		// metadata <topic>=<partitions> ...
		// Example: metadata orders=12
		// Changes partition counts (or adds topics) and tells the
		// coordinator.
		md := slices.Clone(h.metadata)
		for _, arg := range d.CmdArgs {
			n := a.Int32(arg.Key, 0)
			i := slices.IndexFunc(md, func(t kafka.Topic) bool { return t.Name == arg.Key })
			if i < 0 {
				md = append(md, kafka.Topic{Name: arg.Key, Partitions: n})
			} else {
				md[i].Partitions = n
			}
		}
		h.metadata = md
		out := &sim.Effects{}
		h.c.MetadataChanged(h.env(), out)
		return transcript.Lines(h.apply(out))
	case "dump":
		// dump
		// Example: dump
		// The group's state: its type, epochs, members and partition
		// epochs.
		return transcript.Lines(h.dump())
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func TestCoordinatorTranscripts(t *testing.T) {
	datadriven.Walk(t, "testdata/coordinator", func(t *testing.T, path string) {
		h := &coordHarness{}
		datadriven.RunTest(t, path, h.do)
	})
}

// dump describes the group.
func (h *coordHarness) dump() []string {
	c := h.c
	if c.consumer == nil {
		g := c.classic
		lines := []string{fmt.Sprintf("classic %s generation=%d protocol=%s", g.State(), g.Generation(), transcript.OrDash(g.ProtocolName()))}
		for _, m := range g.Members() {
			lines = append(lines, fmt.Sprintf("  %s assignment=%s", m.ID, transcript.Assignment(m.Assignment)))
		}
		return lines
	}
	g := c.consumer
	lines := []string{fmt.Sprintf("consumer %s epoch=%d target-epoch=%d", g.state(), g.groupEpoch, g.targetEpoch)}
	for _, m := range g.members {
		proto := "consumer"
		if m.useClassicProtocol() {
			proto = "classic"
		}
		s := fmt.Sprintf("  %s %s %s epoch=%d prev=%d assigned=%s", m.id, proto, m.State, m.Epoch, m.PreviousEpoch, transcript.Assignment(m.Assigned))
		if m.PendingRevocation.Size() > 0 {
			s += " revoking=" + transcript.Assignment(m.PendingRevocation)
		}
		s += " target=" + transcript.Assignment(g.targetOf(m))
		lines = append(lines, s)
	}
	held := g.partitionEpochs.held()
	var tps []kafka.TopicPartition
	for tp := range held {
		tps = append(tps, tp)
	}
	kafka.SortPartitions(tps)
	var eps []string
	for _, tp := range tps {
		eps = append(eps, fmt.Sprintf("%s=%d", tp, held[tp]))
	}
	lines = append(lines, "  partition epochs: "+strings.Join(eps, " "))
	return lines
}
