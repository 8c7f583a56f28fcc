// Command kgomember is one scenario member as a franz-go (kgo) consumer,
// speaking the same protocol as the Java Member program: it takes the
// Java client's config keys as key=value arguments, prints
// {"ev":"waiting"}, waits for "go" on standard input, then consumes and
// logs its rebalance callbacks, generations and processed offsets as JSON
// lines. SIGTERM closes the client (leaving the group).
//
// Configuration that makes kgo behave as the Java client does, and so is
// part of the comparison's notes:
//   - BlockRebalanceOnPoll: callbacks run between polls, as Java's run
//     inside poll(), so a revoked partition is never processed after its
//     revoke callback returned.
//   - eager is the range balancer (kgo's eager sticky balancer forgets
//     its previous assignment; the simulator's eager is range anyway).
//   - the consumer protocol is kgo's ServerSideBalancer; kgo names the
//     server assignor after its balancer, so the sticky balancer stands
//     for the broker's uniform assignor and range for range.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type logger struct {
	mu     sync.Mutex
	w      *bufio.Writer
	prefix string
}

func (l *logger) line(ev string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := map[string]any{"t": time.Now().UnixMicro(), "ev": ev}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	l.w.Write(b)
	l.w.WriteByte('\n')
	l.w.Flush()
}

func (l *logger) parts(m map[string][]int32) []string {
	var out []string
	for t, ps := range m {
		for _, p := range ps {
			out = append(out, fmt.Sprintf("%s-%d", strings.TrimPrefix(t, l.prefix), p))
		}
	}
	sort.Strings(out)
	return out
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kgomember:", err)
		os.Exit(1)
	}
}

func run() error {
	kv := map[string]string{}
	for _, a := range os.Args[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("argument %q is not key=value", a)
		}
		kv[k] = v
	}
	ms := func(k string) time.Duration {
		n, _ := strconv.ParseInt(kv[k], 10, 64)
		return time.Duration(n) * time.Millisecond
	}
	log := &logger{w: bufio.NewWriter(os.Stdout), prefix: kv["rebalsim.topic.prefix"]}
	rate, _ := strconv.ParseFloat(kv["rebalsim.processing.rate"], 64)
	maxPoll, _ := strconv.Atoi(kv["max.poll.records"])

	var cl *kgo.Client
	gen := func() int {
		if cl == nil {
			return -1
		}
		_, g := cl.GroupMetadata()
		return int(g)
	}
	callback := func(kind string, spend time.Duration) func(context.Context, *kgo.Client, map[string][]int32) {
		return func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			parts := log.parts(m)
			if len(parts) == 0 && kind != "assigned" {
				return // kgo calls revoke at every session end, even with nothing to revoke
			}
			log.line(kind, map[string]any{"phase": "enter", "gen": gen(), "parts": parts})
			time.Sleep(spend)
			log.line(kind, map[string]any{"phase": "return", "gen": gen(), "parts": parts})
		}
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(kv["bootstrap.servers"]),
		kgo.ClientID(kv["client.id"]),
		kgo.ConsumerGroup(kv["group.id"]),
		kgo.ConsumeTopics(strings.Split(kv["rebalsim.topics"], ",")...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.RebalanceTimeout(ms("max.poll.interval.ms")),
		kgo.RequestTimeoutOverhead(ms("request.timeout.ms")),
		kgo.RetryBackoffFn(func(int) time.Duration { return ms("retry.backoff.ms") }),
		kgo.MetadataMaxAge(ms("metadata.max.age.ms")),
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsAssigned(callback("assigned", ms("rebalsim.assign.ms"))),
		kgo.OnPartitionsRevoked(callback("revoked", ms("rebalsim.revoke.ms"))),
		kgo.OnPartitionsLost(callback("lost", ms("rebalsim.lost.ms"))),
	}
	if kv["enable.auto.commit"] == "false" {
		opts = append(opts, kgo.DisableAutoCommit())
	} else {
		opts = append(opts, kgo.AutoCommitInterval(ms("auto.commit.interval.ms")))
	}
	if id := kv["group.instance.id"]; id != "" {
		opts = append(opts, kgo.InstanceID(id))
	}
	switch kv["group.protocol"] {
	case "consumer":
		// kgo names the server assignor after its balancer: sticky asks
		// for the broker's uniform assignor, the scenario's default.
		balancer := kgo.StickyBalancer()
		if kv["group.remote.assignor"] == "range" {
			balancer = kgo.RangeBalancer()
		}
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(balancer))
	default:
		var bs []kgo.GroupBalancer
		for _, a := range strings.Split(kv["partition.assignment.strategy"], ",") {
			switch a {
			case "range":
				bs = append(bs, kgo.RangeBalancer())
			case "roundrobin":
				bs = append(bs, kgo.RoundRobinBalancer())
			case "sticky":
				bs = append(bs, kgo.StickyBalancer())
			case "cooperative-sticky":
				bs = append(bs, kgo.CooperativeStickyBalancer())
			default:
				return fmt.Errorf("assignor %q has no kgo balancer", a)
			}
		}
		opts = append(opts, kgo.Balancers(bs...), kgo.SessionTimeout(ms("session.timeout.ms")), kgo.HeartbeatInterval(ms("heartbeat.interval.ms")))
	}

	log.line("waiting", nil)
	in := bufio.NewScanner(os.Stdin)
	started := false
	for in.Scan() {
		if in.Text() == "go" {
			started = true
			break
		}
	}
	if !started {
		return nil
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	var err error
	if cl, err = kgo.NewClient(opts...); err != nil {
		return err
	}
	log.line("started", nil)

	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-term; cancel() }()
	perRecord := time.Duration(0)
	if rate > 0 {
		perRecord = time.Duration(float64(time.Second) / rate)
	}
	busyUntil := time.Now()
	lastGen := -2
	for ctx.Err() == nil {
		pctx, pcancel := context.WithTimeout(ctx, 50*time.Millisecond)
		fetches := cl.PollRecords(pctx, maxPoll)
		pcancel()
		if g := gen(); g != lastGen {
			log.line("gen", map[string]any{"gen": g})
			lastGen = g
		}
		type rng struct{ from, to int64 }
		open := map[string]*rng{}
		var order []string
		flush := func(part string) {
			r := open[part]
			log.line("processed", map[string]any{"part": part, "from": r.from, "to": r.to})
		}
		fetches.EachRecord(func(r *kgo.Record) {
			if perRecord > 0 {
				busyUntil = maxTime(busyUntil, time.Now()).Add(perRecord)
				if wait := time.Until(busyUntil); wait > 2*time.Millisecond {
					time.Sleep(wait)
				}
			}
			part := fmt.Sprintf("%s-%d", strings.TrimPrefix(r.Topic, log.prefix), r.Partition)
			cur := open[part]
			switch {
			case cur == nil:
				open[part] = &rng{r.Offset, r.Offset}
				order = append(order, part)
			case r.Offset == cur.to+1 && cur.to-cur.from < 49:
				cur.to = r.Offset
			default:
				flush(part)
				cur.from, cur.to = r.Offset, r.Offset
			}
		})
		for _, p := range order {
			flush(p)
		}
		cl.AllowRebalance()
	}
	log.line("closing", nil)
	cl.Close()
	log.line("closed", nil)
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
