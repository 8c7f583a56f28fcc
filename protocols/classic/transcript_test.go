package classic_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/rebalsim/rebalsim/protocols"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/internal/transcript"
	"github.com/rebalsim/rebalsim/sim"
)

// Transcript tests of the classic client (github.com/cockroachdb/datadriven,
// as etcd's raft uses it): each file of testdata/client drives clients with
// scripted coordinator responses and prints every effect: notes, requests
// with the thread that sent them, callbacks, timers set and cancelled, and
// polls asked for. `go test -rewrite` regenerates the expectations; review
// the diff like code.

// joinResponse reads `recv <name> join ...`. A member of the leader's list
// is written id or id=owned; every member is subscribed to orders, and one
// that owns partitions owned them in the generation before gen.
func joinResponse(a transcript.Args, c *classic.Client, protocol string) *classic.JoinGroupResponse {
	r := &classic.JoinGroupResponse{Error: classic.ErrorCode(a.Str("err", string(classic.None))), MemberID: a.Str("member", c.MemberID()),
		Generation: a.Int32("gen", -1), Leader: a.Str("leader", ""), SkipAssignment: a.Has("skip-assignment")}
	if r.Error == classic.None {
		r.ProtocolName = a.Str("protocol", protocol)
	}
	for _, m := range a.List("members") {
		id, owned, hasOwned := strings.Cut(m, "=")
		sub := classic.Subscription{Topics: []string{"orders"}, Generation: -1}
		if hasOwned {
			sub.Owned, sub.Generation = a.ParseAssignment(owned), r.Generation-1
		}
		r.Members = append(r.Members, classic.JoinGroupMember{MemberID: id, Metadata: sub})
	}
	return r
}

// classicHarness adds to the shared client commands what needs the classic
// client: creating one, its responses, its state.
type classicHarness struct {
	transcript.Clients
	// assignors are each client's configured assignors, the first of
	// which a JoinGroup response names by default.
	assignors map[string][]string
}

// do runs one command of a classic client transcript; the commands every
// client transcript shares are transcript.Clients'.
func (h *classicHarness) do(t *testing.T, d *datadriven.TestData, a transcript.Args) string {
	switch d.Cmd {
	case "new":
		// new <name> [static | instance=<id>] [session=<dur>] [maxpoll=<dur>] [assignors=a,b]
		// Example: new c1 assignors=cooperative-sticky
		// A classic client (see transcript.Args.ConsumerConfig), its
		// rebalance protocol (EAGER or COOPERATIVE) the one its assignors
		// (by default Kafka's: range, cooperative-sticky, so EAGER) share.
		cfg := a.ConsumerConfig("classic")
		name := cfg.ClientID
		if as := a.List("assignors"); as != nil {
			cfg.Assignors = as
		}
		c, err := protocols.Models{}.NewClient(sim.Endpoint{Process: name, Incarnation: 1}, cfg)
		if err != nil {
			d.Fatalf(t, "new %s: %v", name, err)
		}
		h.Add(name, c)
		h.assignors[name] = cfg.Assignors
		return ""
	case "recv":
		// recv <name> join [err=<code>] [member=<id>] [gen=<n>] [protocol=<name>]
		//   [leader=<id>] [members=(<id>[=<owned>], ...)] [skip-assignment]
		// recv <name> sync [err=<code>] [assignment=t:0,1|-]
		// recv <name> heartbeat [err=<code>]
		// recv <name> leave [err=<code>]
		// recv <name> commit [err=<code>] [member=<id>] [gen=<n>]
		// Example: recv c1 join gen=1 leader=c1-1 members=(c1-1, c2-2=orders:3-5)
		// A coordinator response. The error defaults to NONE, the member id
		// to the client's, the protocol to its first assignor. A commit's
		// member and generation are those of the OffsetCommit it answers,
		// by default the client's now. A commit without an error is the
		// answer to onJoinPrepare's auto-commit (sim.CommitAwaiter).
		name, c := h.Client(t, d)
		if a.Pos(1) == "commit" && a.Str("err", "") == "" {
			return transcript.Lines(h.Step(name, func(c sim.Client, env sim.ClientEnv, out *sim.Effects) {
				c.(sim.CommitAwaiter).CommitAnswered(env, out)
			}))
		}
		if a.Pos(1) == "commit" {
			cc := c.(*classic.Client)
			sent := sim.OffsetCommit{MemberID: a.Str("member", cc.MemberID()), GenerationIDOrMemberEpoch: a.Int32("gen", cc.Generation()), Partitions: cc.Owned().Partitions()}
			r := sim.RejectAll(sent, a.Str("err", ""))
			return transcript.Lines(h.Step(name, func(c sim.Client, env sim.ClientEnv, out *sim.Effects) {
				c.(sim.CommitResponder).OffsetCommitRejected(env, sent, r, out)
			}))
		}
		var msg sim.Message
		code := classic.ErrorCode(a.Str("err", string(classic.None)))
		switch kind := a.Pos(1); kind {
		case "join":
			msg = joinResponse(a, c.(*classic.Client), h.assignors[name][0])
		case "sync":
			msg = &classic.SyncGroupResponse{Error: code, Assignment: a.Assignment("assignment")}
		case "heartbeat":
			msg = &classic.HeartbeatResponse{Error: code}
		case "leave":
			msg = &classic.LeaveGroupResponse{Error: code}
		default:
			d.Fatalf(t, "recv %s %s: want join, sync, heartbeat, leave or commit", name, kind)
		}
		return transcript.Lines(h.Step(name, func(c sim.Client, env sim.ClientEnv, out *sim.Effects) { c.Receive(env, msg, out) }))
	case "state":
		// state <name>
		// Example: state c1
		// The client's state (with what follows outstanding callbacks),
		// membership, owned partitions and flags.
		name, sc := h.Client(t, d)
		c := sc.(*classic.Client)
		return transcript.Lines([]string{
			fmt.Sprintf("%s %s member=%s gen=%d owned=%s", name, c.State(), transcript.OrDash(c.MemberID()), c.Generation(), transcript.Assignment(c.Owned())),
			transcript.Flags(c),
		})
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func TestClientTranscripts(t *testing.T) {
	datadriven.Walk(t, "testdata/client", func(t *testing.T, path string) {
		h := &classicHarness{Clients: transcript.Clients{Message: transcript.Message, Threads: true}, assignors: map[string][]string{}}
		h.Run(t, path, h.do)
	})
}
