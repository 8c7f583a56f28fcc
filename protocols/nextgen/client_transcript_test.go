package nextgen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/internal/transcript"
	"github.com/rebalsim/rebalsim/sim"
)

func fmtLocal(a localAssignment) string {
	if a.isNone() {
		return "none"
	}
	return fmt.Sprintf("%s@%d", transcript.Assignment(a.partitions), a.epoch)
}

// doClient runs one command of a consumer-protocol client transcript; the
// commands every client transcript shares are transcript.Clients'.
func doClient(h *transcript.Clients, t *testing.T, d *datadriven.TestData, a transcript.Args) string {
	switch d.Cmd {
	case "new":
		// new <name> [static | instance=<id>] [session=<dur>] [maxpoll=<dur>] [assignor=<name>] [listener] [no-auto-commit]
		// Example: new c1 static
		// A consumer-protocol client (see transcript.Args.ConsumerConfig);
		// assignor is its group.remote.assignor; listener registers a
		// rebalance listener (rebalance_listener); no-auto-commit turns
		// enable.auto.commit off.
		cfg := a.ConsumerConfig("consumer")
		cfg.RemoteAssignor = a.Str("assignor", "")
		cfg.RebalanceListener = a.Has("listener")
		if a.Has("no-auto-commit") {
			cfg.EnableAutoCommit = false
		}
		h.Add(cfg.ClientID, NewClient(sim.Endpoint{Process: cfg.ClientID, Incarnation: 1}, cfg))
		return ""
	case "recv":
		// recv <name> [err=<code>] [member=<id>] [epoch=<n>] [interval=<ms>]
		//   [assignment=t:0,1|-] [corr=<n>]
		// Example: recv c1 member=c1-1 epoch=1 assignment=orders:0-2
		// A ConsumerGroupHeartbeatResponse to the request in flight (or to
		// correlation id corr); the member id, epoch and interval default
		// to the client's own, and no assignment means none in the response.
		name, sc := h.Client(t, d)
		c := sc.(*Client)
		r := &ConsumerGroupHeartbeatResponse{CorrelationID: a.Int32("corr", c.inFlight), ErrorCode: classic.ErrorCode(strings.ToUpper(a.Str("err", "NONE"))),
			MemberID: a.Str("member", c.memberID), MemberEpoch: a.Int32("epoch", c.memberEpoch),
			HeartbeatIntervalMs: a.Int32("interval", toMs(c.interval)), Assignment: a.Assignment("assignment")}
		return transcript.Lines(h.Step(name, func(c sim.Client, env sim.ClientEnv, out *sim.Effects) { c.Receive(env, r, out) }))
	case "state":
		// state <name>
		// Example: state c1
		// The client's state (with what follows outstanding callbacks),
		// membership, assignments, request in flight and flags.
		name, sc := h.Client(t, d)
		c := sc.(*Client)
		s := fmt.Sprintf("%s %s member=%s epoch=%d owned=%s current=%s", name, c.State(), transcript.OrDash(c.memberID), c.memberEpoch, transcript.Assignment(c.owned), fmtLocal(c.current))
		s += " target=" + fmtLocal(c.target)
		if c.inFlight != 0 {
			s += fmt.Sprintf(" in-flight=%d", c.inFlight)
		}
		return transcript.Lines([]string{s, transcript.Flags(c)})
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func TestClientTranscripts(t *testing.T) {
	datadriven.Walk(t, "testdata/client", func(t *testing.T, path string) {
		h := &transcript.Clients{Message: fmtMessage}
		h.Run(t, path, func(t *testing.T, d *datadriven.TestData, a transcript.Args) string { return doClient(h, t, d, a) })
	})
}
