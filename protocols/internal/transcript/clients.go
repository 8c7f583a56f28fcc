package transcript

import (
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/sim"
)

// Clients drives client models with a fake clock, for a package's client
// transcripts. The application thread is modelled by hand: callbacks wait
// in a queue until `done`, and `stall` freezes the time of the last poll.
// The package's harness creates the clients and handles the commands that
// need its model's messages (`recv`) or state (`state`); Run handles the
// rest.
type Clients struct {
	// Message prints a client's request.
	Message func(sim.Message) string
	// Threads prints, after each request, the thread that sent it.
	Threads bool

	now       time.Duration
	timers    Timers
	clients   map[string]sim.Client
	callbacks map[string][]sim.Callback
	stalledAt map[string]time.Duration
}

// Add registers client c under name.
func (h *Clients) Add(name string, c sim.Client) {
	if h.clients == nil {
		h.clients, h.callbacks, h.stalledAt = map[string]sim.Client{}, map[string][]sim.Callback{}, map[string]time.Duration{}
	}
	h.clients[name] = c
	h.timers.Add(name)
}

// Client returns the client named by the command's first argument, failing
// if there is none.
func (h *Clients) Client(t testing.TB, d *datadriven.TestData) (string, sim.Client) {
	name := NewArgs(t, d).Pos(0)
	c := h.clients[name]
	if c == nil {
		d.Fatalf(t, "%s: no client %s; create it with new %s", d.Cmd, name, name)
	}
	return name, c
}

func (h *Clients) env(name string) sim.ClientEnv {
	last := h.now
	if at, ok := h.stalledAt[name]; ok {
		last = at
	}
	// Every client of a transcript sees topic orders with 6 partitions.
	return sim.ClientEnv{Now: h.now, LastPoll: last, Metadata: []kafka.Topic{{Name: "orders", Partitions: 6}}}
}

// Step gives client name one input and prints its effects: notes,
// requests, callbacks (which then wait for `done`), timers, and whether it
// asked for a poll.
func (h *Clients) Step(name string, input func(c sim.Client, env sim.ClientEnv, out *sim.Effects)) []string {
	out := &sim.Effects{}
	input(h.clients[name], h.env(name), out)
	var lines []string
	for _, n := range out.Notes {
		lines = append(lines, Note(n))
	}
	for _, s := range out.Sends {
		line := name + " -> " + h.Message(s.Msg)
		switch {
		case !h.Threads:
		case s.Thread == sim.BackgroundThread:
			line += " (heartbeat thread)"
		default:
			line += " (app thread)"
		}
		lines = append(lines, line)
	}
	for _, cb := range out.Callbacks {
		lines = append(lines, Callback(cb))
		h.callbacks[name] = append(h.callbacks[name], cb)
	}
	lines = append(lines, h.timers.Apply(name, out.Timers)...)
	if out.CommitOffsets {
		lines = append(lines, name+" commits what it consumed (auto-commit)")
	}
	if out.WantPoll {
		lines = append(lines, "wants poll")
	}
	return lines
}

// advance moves the clock, firing the clients' due timers in time order.
func (h *Clients) advance(d time.Duration) []string {
	return h.timers.Advance(&h.now, d, func(who string, id sim.TimerID) []string {
		return h.Step(who, func(c sim.Client, env sim.ClientEnv, out *sim.Effects) { c.Timer(env, id, out) })
	})
}

// Run runs the client transcript at path: the commands every client
// transcript shares here, every other one (new, recv, state) by own.
func (h *Clients) Run(t *testing.T, path string, own func(t *testing.T, d *datadriven.TestData, a Args) string) {
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		if out, ok := h.shared(t, d); ok {
			return out
		}
		return own(t, d, NewArgs(t, d))
	})
}

// shared runs the commands every client transcript shares and reports
// whether d was one of them.
func (h *Clients) shared(t testing.TB, d *datadriven.TestData) (string, bool) {
	a := NewArgs(t, d)
	if d.Cmd == "tick" {
		// tick <duration>
		// Example: tick 5s
		// Advances the clock, firing every client's due timers in time
		// order.
		return Lines(h.advance(a.PosDur(0))), true
	}
	on := func(input func(c sim.Client, env sim.ClientEnv, out *sim.Effects)) (string, bool) {
		name, _ := h.Client(t, d)
		return Lines(h.Step(name, input)), true
	}
	switch d.Cmd {
	case "start":
		// start <name>
		// Example: start c1
		// The process starts and subscribes.
		return on(func(c sim.Client, env sim.ClientEnv, out *sim.Effects) { c.Start(env, out) })
	case "poll":
		// poll <name> [no-event]
		// Example: poll c1
		// One poll() of the application thread. It hands the background
		// thread the application's poll event, unless no-event says it
		// is one that does not (from 4.2, a poll() that finds the last
		// event done and records still buffered; see sim.ClientEnv).
		event := !a.Has("no-event")
		return on(func(c sim.Client, env sim.ClientEnv, out *sim.Effects) {
			env.PollEvent = event
			c.Poll(env, out)
		})
	case "close":
		// close <name>
		// Example: close c1
		// close(): release the partitions, then leave.
		return on(func(c sim.Client, env sim.ClientEnv, out *sim.Effects) { c.Close(env, out) })
	case "subscribe":
		// subscribe <name> topics=a,b
		// Example: subscribe c1 topics=(orders, payments)
		topics := a.List("topics")
		return on(func(c sim.Client, env sim.ClientEnv, out *sim.Effects) { c.Subscribe(env, topics, out) })
	case "done":
		// done <name>
		// Example: done c1
		// The application thread finishes the oldest callback it runs.
		name, _ := h.Client(t, d)
		q := h.callbacks[name]
		if len(q) == 0 {
			return "error: no callback running\n", true
		}
		cb := q[0]
		h.callbacks[name] = q[1:]
		return on(func(c sim.Client, env sim.ClientEnv, out *sim.Effects) { c.CallbackDone(env, cb, out) })
	case "stall":
		// stall <name>
		// Example: stall c1
		// The application thread stops polling: its last poll stays at now.
		name, _ := h.Client(t, d)
		h.stalledAt[name] = h.now
		return "", true
	case "unstall":
		// unstall <name>
		// Example: unstall c1
		// The application thread polls again.
		name, _ := h.Client(t, d)
		delete(h.stalledAt, name)
		return "", true
	}
	return "", false
}

// Flags prints what every client reports to the simulator.
func Flags(c sim.Client) string {
	return fmt.Sprintf("settled=%v rebalancing=%v fenced=%v closed=%v", c.Settled(), c.Rebalancing(), c.Fenced(), c.Closed())
}
