package nextgen

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/protocols/internal/transcript"
	"github.com/rebalsim/rebalsim/sim"
)

// clientHarness drives consumer-protocol clients with a fake clock. The
// application thread is modelled by hand: callbacks wait in a queue until
// `done`, and `stall` freezes the time of the last poll.
type clientHarness struct {
	now       time.Duration
	clients   map[string]*Client
	timers    transcript.Timers
	callbacks map[string][]sim.Callback
	stalledAt map[string]time.Duration
}

func newClientHarness() *clientHarness {
	return &clientHarness{clients: map[string]*Client{}, callbacks: map[string][]sim.Callback{}, stalledAt: map[string]time.Duration{}}
}

func (h *clientHarness) env(name string) sim.ClientEnv {
	last := h.now
	if at, ok := h.stalledAt[name]; ok {
		last = at
	}
	return sim.ClientEnv{Now: h.now, LastPoll: last, Metadata: []kafka.Topic{{Name: "orders", Partitions: 6}}}
}

// step gives client name one input and prints its effects.
func (h *clientHarness) step(name string, input func(c *Client, env sim.ClientEnv, out *sim.Effects)) []string {
	out := &sim.Effects{}
	input(h.clients[name], h.env(name), out)
	var lines []string
	for _, n := range out.Notes {
		lines = append(lines, transcript.Note(n))
	}
	for _, s := range out.Sends {
		lines = append(lines, name+" -> "+fmtMessage(s.Msg))
	}
	for _, cb := range out.Callbacks {
		lines = append(lines, transcript.Callback(cb))
		h.callbacks[name] = append(h.callbacks[name], cb)
	}
	lines = append(lines, h.timers.Apply(name, out.Timers)...)
	if out.WantPoll {
		lines = append(lines, "wants poll")
	}
	return lines
}

// advance moves the clock, firing the clients' due timers in time order.
func (h *clientHarness) advance(d time.Duration) []string {
	until := h.now + d
	var lines []string
	for {
		who, id, at, ok := h.timers.Next(until)
		if !ok {
			break
		}
		h.now = at
		lines = append(lines, fmt.Sprintf("%s timer %s @%s", who, id, transcript.Duration(at)))
		lines = append(lines, h.step(who, func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Timer(env, id, out) })...)
	}
	h.now = until
	return lines
}

func (h *clientHarness) dump(name string) []string {
	c := h.clients[name]
	s := fmt.Sprintf("%s %s member=%s epoch=%d owned=%s current=%s", name, c.State(), transcript.OrDash(c.memberID), c.memberEpoch, transcript.Assignment(c.owned), fmtLocal(c.current))
	s += " target=" + fmtLocal(c.target)
	if c.inFlight != 0 {
		s += fmt.Sprintf(" in-flight=%d", c.inFlight)
	}
	return []string{s, fmt.Sprintf("settled=%v rebalancing=%v fenced=%v closed=%v", c.Settled(), c.Rebalancing(), c.Fenced(), c.Closed())}
}

func fmtLocal(a localAssignment) string {
	if a.isNone() {
		return "none"
	}
	return fmt.Sprintf("%s@%d", transcript.Assignment(a.partitions), a.epoch)
}

// do runs one command of a client transcript.
func (h *clientHarness) do(t *testing.T, d *datadriven.TestData) string {
	a := transcript.NewArgs(t, d)
	if d.Cmd == "tick" {
		// tick <duration>
		// Example: tick 5s
		// Advances the clock, firing every client's due timers in time
		// order.
		return transcript.Lines(h.advance(a.PosDur(0)))
	}
	name := a.Pos(0)
	if d.Cmd != "new" && h.clients[name] == nil {
		d.Fatalf(t, "%s: no client %s; create it with new %s", d.Cmd, name, name)
	}
	on := func(input func(c *Client, env sim.ClientEnv, out *sim.Effects)) string {
		return transcript.Lines(h.step(name, input))
	}
	switch d.Cmd {
	case "new":
		// new <name> [static] [maxpoll=<dur>] [assignor=<name>]
		// Example: new c1 static
		// A consumer-protocol client subscribed to orders, with Kafka's
		// defaults; static makes <name> its group.instance.id.
		cfg := sim.DefaultConsumerConfig(name)
		cfg.GroupProtocol = "consumer"
		cfg.Subscription = []string{"orders"}
		cfg.MaxPollInterval = a.Dur("maxpoll", cfg.MaxPollInterval)
		cfg.RemoteAssignor = a.Str("assignor", "")
		if a.Has("static") {
			cfg.GroupInstanceID = name
		}
		h.clients[name] = NewClient(sim.Endpoint{Process: name, Incarnation: 1}, cfg)
		h.timers.Add(name)
		return ""
	case "start":
		// start <name>
		// The process starts and subscribes.
		return on(func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Start(env, out) })
	case "poll":
		// poll <name>
		// One poll() of the application thread.
		return on(func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Poll(env, out) })
	case "close":
		// close <name>
		// close(): release the partitions, then leave.
		return on(func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Close(env, out) })
	case "subscribe":
		// subscribe <name> topics=a,b
		// Example: subscribe c1 topics=(orders, payments)
		topics := a.List("topics")
		return on(func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Subscribe(env, topics, out) })
	case "recv":
		// recv <name> [err=<code>] [member=<id>] [epoch=<n>] [interval=<ms>]
		//   [assignment=t:0,1|-] [corr=<n>]
		// Example: recv c1 member=c1-1 epoch=1 assignment=orders:0-2
		// A ConsumerGroupHeartbeatResponse to the request in flight (or to
		// correlation id corr); the member id, epoch and interval default
		// to the client's own, and no assignment means none in the response.
		c := h.clients[name]
		r := ConsumerGroupHeartbeatResponse{CorrelationID: a.Int32("corr", c.inFlight), ErrorCode: classic.ErrorCode(strings.ToUpper(a.Str("err", "NONE"))),
			MemberID: a.Str("member", c.memberID), MemberEpoch: a.Int32("epoch", c.memberEpoch),
			HeartbeatIntervalMs: a.Int32("interval", toMs(c.interval)), Assignment: a.Assignment("assignment")}
		return on(func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Receive(env, r, out) })
	case "done":
		// done <name>
		// The application thread finishes the oldest callback it runs.
		q := h.callbacks[name]
		if len(q) == 0 {
			return "error: no callback running\n"
		}
		cb := q[0]
		h.callbacks[name] = q[1:]
		return on(func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.CallbackDone(env, cb, out) })
	case "stall":
		// stall <name>
		// The application thread stops polling: its last poll stays at now.
		h.stalledAt[name] = h.now
		return ""
	case "unstall":
		// unstall <name>
		// The application thread polls again.
		delete(h.stalledAt, name)
		return ""
	case "state":
		// state <name>
		// The client's state, assignments and flags.
		return transcript.Lines(h.dump(name))
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func TestClientTranscripts(t *testing.T) {
	datadriven.Walk(t, "testdata/client", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, newClientHarness().do)
	})
}
