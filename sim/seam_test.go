package sim

import (
	"testing"
	"time"

	"github.com/rebalsim/rebalsim/kafka"
)

// The seam between clients and the coordinator, with a client and a
// coordinator small enough to see through: the client sends one request
// from each of its threads while a ten-second callback holds its
// application thread; the coordinator answers every request the same way,
// naming no thread.

// ping is a request, pong its response; Thread says which thread sent the
// ping, so that the client can tell the pongs apart.
type ping struct{ Thread Thread }
type pong struct{ Thread Thread }

func (ping) Kind() string { return "Ping" }
func (pong) Kind() string { return "Pong" }

// echo answers every ping with a pong to the endpoint it came from.
type echo struct{}

func (echo) Receive(_ CoordinatorEnv, from Endpoint, msg Message, out *Effects) {
	out.Send(from, pong(msg.(ping)))
}
func (echo) Timer(CoordinatorEnv, TimerID, *Effects)  {}
func (echo) MetadataChanged(CoordinatorEnv, *Effects) {}
func (echo) Stable() bool                             { return true }
func (echo) State() string                            { return "ECHO" }

// pinger records when each pong arrived, by the thread its ping came from.
type pinger struct{ got map[Thread]time.Duration }

func (c *pinger) Start(_ ClientEnv, out *Effects) {
	out.Callbacks = append(out.Callbacks, Callback{Kind: CallbackAssigned, Partitions: []kafka.TopicPartition{{Topic: "orders", Partition: 0}}})
	out.Request(AppThread, ping{AppThread})
	out.Request(BackgroundThread, ping{BackgroundThread})
}
func (c *pinger) Receive(env ClientEnv, msg Message, _ *Effects) {
	c.got[msg.(pong).Thread] = env.Now
}
func (c *pinger) Poll(ClientEnv, *Effects)                   {}
func (c *pinger) Timer(ClientEnv, TimerID, *Effects)         {}
func (c *pinger) CallbackDone(ClientEnv, Callback, *Effects) {}
func (c *pinger) Close(ClientEnv, *Effects)                  {}
func (c *pinger) Closed() bool                               { return false }
func (c *pinger) Subscribe(ClientEnv, []string, *Effects)    {}
func (c *pinger) Settled() bool                              { return true }
func (c *pinger) Rebalancing() bool                          { return false }
func (c *pinger) Fenced() bool                               { return false }
func (c *pinger) State() string                              { return "PINGING" }

type pingModels struct{ client *pinger }

func (m pingModels) NewCoordinator(GroupConfig) GroupCoordinator { return echo{} }
func (m pingModels) NewClient(Endpoint, ConsumerConfig) (Client, error) {
	return m.client, nil
}
func (m pingModels) Names() Names { return Names{Protocols: Protocols()} }

func TestResponseReturnsToTheSendingThread(t *testing.T) {
	callback := 10 * time.Second
	sc := &Scenario{Name: "ping", Duration: time.Minute,
		Topics:   []TopicSpec{{Name: "orders", Partitions: 1}},
		Network:  NetworkSpec{Latency: Distribution{Kind: DistConstant, Value: time.Millisecond}},
		Defaults: ConsumerSettings{AssignCallback: &callback},
		Members:  []MemberSpec{{ID: "c1"}}}
	c := &pinger{got: map[Thread]time.Duration{}}
	if _, err := Run(sc, pingModels{c}, RunOptions{Protocol: ProtocolNextgen}); err != nil {
		t.Fatal(err)
	}
	// The heartbeat thread's pong arrives after one round trip, 2ms; the
	// application thread's waits for the 10s callback that blocks it.
	want := map[Thread]time.Duration{BackgroundThread: 2 * time.Millisecond, AppThread: callback}
	for thread, at := range want {
		if c.got[thread] != at {
			t.Errorf("pong for the ping from thread %d handled at %v, want %v", thread, c.got[thread], at)
		}
	}
}
