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
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rebalsim/rebalsim/fidelity/internal/member"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kgomember:", err)
		os.Exit(1)
	}
}

func run() error {
	kv, err := member.ParseArgs(os.Args[1:])
	if err != nil {
		return err
	}
	ms := kv.Ms
	log := member.NewLog(os.Stdout, kv["rebalsim.topic.prefix"])
	rate, _ := strconv.ParseFloat(kv["rebalsim.processing.rate"], 64)
	maxPoll := kv.Int("max.poll.records")

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
			parts := log.Parts(m)
			if len(parts) == 0 && kind != "assigned" {
				return // kgo calls revoke at every session end, even with nothing to revoke
			}
			log.Line(kind, map[string]any{"phase": "enter", "gen": gen(), "parts": parts})
			time.Sleep(spend)
			log.Line(kind, map[string]any{"phase": "return", "gen": gen(), "parts": parts})
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

	if !log.WaitGo(os.Stdin) {
		return nil
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	if cl, err = kgo.NewClient(opts...); err != nil {
		return err
	}
	log.Line("started", nil)

	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-term; cancel() }()
	proc := member.NewProcessor(log, rate)
	lastGen := -2
	for ctx.Err() == nil {
		pctx, pcancel := context.WithTimeout(ctx, 50*time.Millisecond)
		fetches := cl.PollRecords(pctx, maxPoll)
		pcancel()
		if g := gen(); g != lastGen {
			log.Line("gen", map[string]any{"gen": g})
			lastGen = g
		}
		fetches.EachRecord(func(r *kgo.Record) { proc.Process(log.Part(r.Topic, r.Partition), r.Offset) })
		proc.Flush()
		cl.AllowRebalance()
	}
	log.Line("closing", nil)
	cl.Close()
	log.Line("closed", nil)
	return nil
}
