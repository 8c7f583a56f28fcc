package nextgen

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/classic"
	"github.com/rebalsim/rebalsim/sim"
)

// clientHarness drives consumer-protocol clients with a fake clock. The
// application thread is modelled by hand: callbacks wait in a queue until
// `done`, and `stall` freezes the time of the last poll.
type clientHarness struct {
	t         *testing.T
	now       time.Duration
	clients   map[string]*Client
	names     []string
	timers    map[string]map[sim.TimerID]time.Duration
	callbacks map[string][]sim.Callback
	stalledAt map[string]time.Duration
}

func newClientHarness(t *testing.T) *clientHarness {
	return &clientHarness{t: t, clients: map[string]*Client{}, timers: map[string]map[sim.TimerID]time.Duration{},
		callbacks: map[string][]sim.Callback{}, stalledAt: map[string]time.Duration{}}
}

func (h *clientHarness) env(name string) sim.ClientEnv {
	last := h.now
	if at, ok := h.stalledAt[name]; ok {
		last = at
	}
	return sim.ClientEnv{Now: h.now, LastPoll: last, Metadata: []kafka.Topic{{Name: "orders", Partitions: 6}}}
}

func (h *clientHarness) step(name string, input func(c *Client, env sim.ClientEnv, out *sim.Effects)) []string {
	c := h.clients[name]
	if c == nil {
		h.t.Fatalf("no client %s", name)
	}
	out := &sim.Effects{}
	input(c, h.env(name), out)
	var lines []string
	for _, n := range out.Notes {
		lines = append(lines, fmtNote(n))
	}
	for _, s := range out.Sends {
		lines = append(lines, name+" -> "+fmtMessage(s.Msg))
	}
	for _, cb := range out.Callbacks {
		lines = append(lines, fmt.Sprintf("callback %s %s", cb.Kind, fmtAssignment(kafka.FromPartitions(cb.Partitions))))
		h.callbacks[name] = append(h.callbacks[name], cb)
	}
	for _, tr := range out.Timers {
		if tr.Cancel {
			delete(h.timers[name], tr.ID)
			continue
		}
		h.timers[name][tr.ID] = tr.At
		if tr.ID.Kind == timerHeartbeat {
			lines = append(lines, "timer heartbeat @"+fmtDur(tr.At))
		}
	}
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
		who, name, at := "", sim.TimerID{}, time.Duration(-1)
		for _, n := range h.names {
			for _, tn := range sortedTimerNames(h.timers[n]) {
				if tat := h.timers[n][tn]; tat <= until && (at < 0 || tat < at) {
					who, name, at = n, tn, tat
				}
			}
		}
		if who == "" {
			break
		}
		delete(h.timers[who], name)
		h.now = at
		lines = append(lines, fmt.Sprintf("%s timer %s @%s", who, name, fmtDur(at)))
		lines = append(lines, h.step(who, func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Timer(env, name, out) })...)
	}
	h.now = until
	return lines
}

func (h *clientHarness) dump(name string) []string {
	c := h.clients[name]
	s := fmt.Sprintf("%s %s member=%s epoch=%d owned=%s current=%s", name, c.state, orDash(c.memberID), c.memberEpoch, fmtAssignment(c.owned), fmtLocal(c.current))
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
	return fmt.Sprintf("%s@%d", fmtAssignment(a.partitions), a.epoch)
}

// The client commands:
//
//	new <name> [static] [maxpoll=<dur>] [assignor=<name>]
//	  Example: new c1 static
//	start|poll|close <name>
//	recv <name> [err=<code>] [member=<id>] [epoch=<n>] [interval=<ms>] [assignment=t:0,1|-] [corr=<n>]
//	  A response to the request in flight (or to correlation id corr).
//	done <name>          the application thread finishes its oldest callback
//	stall|unstall <name> the application thread stops / resumes polling
//	subscribe <name> topics=a,b
//	tick <duration>
//	state <name>
func (h *clientHarness) do(t *testing.T, cmd string, fields []string) []string {
	pos, a := parseArgs(t, fields)
	if cmd == "tick" {
		d, err := time.ParseDuration(pos[0])
		if err != nil {
			t.Fatal(err)
		}
		return h.advance(d)
	}
	name := pos[0]
	switch cmd {
	case "new":
		cfg := sim.DefaultConsumerConfig(name)
		cfg.GroupProtocol = "consumer"
		cfg.Subscription = []string{"orders"}
		cfg.MaxPollInterval = a.dur(t, "maxpoll", cfg.MaxPollInterval)
		cfg.RemoteAssignor = a.str("assignor", "")
		if slices.Contains(pos, "static") {
			cfg.GroupInstanceID = name
		}
		h.clients[name] = NewClient(sim.Endpoint{Process: name, Incarnation: 1}, cfg)
		h.names = append(h.names, name)
		h.timers[name] = map[sim.TimerID]time.Duration{}
		return nil
	case "start":
		return h.step(name, func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Start(env, out) })
	case "poll":
		return h.step(name, func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Poll(env, out) })
	case "close":
		return h.step(name, func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Close(env, out) })
	case "subscribe":
		return h.step(name, func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Subscribe(env, a.list("topics"), out) })
	case "recv":
		c := h.clients[name]
		r := ConsumerGroupHeartbeatResponse{CorrelationID: a.int32(t, "corr", c.inFlight), ErrorCode: classicCode(a.str("err", "NONE")),
			MemberID: a.str("member", c.memberID), MemberEpoch: a.int32(t, "epoch", c.memberEpoch),
			HeartbeatIntervalMs: a.int32(t, "interval", toMs(c.interval)), Assignment: a.assignment(t, "assignment")}
		return h.step(name, func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.Receive(env, r, out) })
	case "done":
		q := h.callbacks[name]
		if len(q) == 0 {
			return []string{"error: no callback running"}
		}
		cb := q[0]
		h.callbacks[name] = q[1:]
		return h.step(name, func(c *Client, env sim.ClientEnv, out *sim.Effects) { c.CallbackDone(env, cb, out) })
	case "stall":
		h.stalledAt[name] = h.now
		return nil
	case "unstall":
		delete(h.stalledAt, name)
		return nil
	case "state":
		return h.dump(name)
	}
	t.Fatalf("unknown command %q", cmd)
	return nil
}

func TestClientTranscripts(t *testing.T) {
	for _, path := range transcriptFiles(t, "client") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			runTranscript(t, path, newClientHarness(t).do)
		})
	}
}

func classicCode(s string) classic.ErrorCode { return classic.ErrorCode(strings.ToUpper(s)) }
