// Command rdkmember is one scenario member as a librdkafka consumer
// (confluent-kafka-go, which links a static librdkafka; it needs cgo),
// speaking the same line protocol as the Java Member program (see
// internal/member). SIGTERM closes the consumer (revocation callbacks,
// commit, LeaveGroup).
//
// How what the suite needs is observed, and the configuration that makes
// librdkafka behave as the Java client does (FIDELITY.md, "Other
// clients"):
//   - assignments, revocations and losses: the binding's rebalance
//     callback, served inside Poll as Java's listener runs inside poll();
//     a revocation is lost when Consumer.AssignmentLost says so.
//   - the generation (classic) or member epoch (consumer protocol):
//     librdkafka keeps it in its consumer group metadata, which the
//     binding returns serialised only; generation.go reads it back with
//     librdkafka's own rd_kafka_consumer_group_metadata_read and
//     _generation_id.
//   - librdkafka has no max.poll.records (Poll returns one record); the
//     processed ranges are logged every max.poll.records records and
//     before every callback, so a handover never hides a processed
//     record.
//   - request.timeout.ms is a producer setting in librdkafka and is not
//     passed; librdkafka has no eager sticky assignor.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/rebalsim/rebalsim/fidelity/internal/member"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "rdkmember:", err)
		os.Exit(1)
	}
}

// passed are the Java client's keys that librdkafka reads with the same
// meaning, for both group protocols.
var passed = []string{
	"bootstrap.servers", "group.id", "client.id", "group.protocol", "auto.offset.reset",
	"max.poll.interval.ms", "retry.backoff.ms", "enable.auto.commit", "auto.commit.interval.ms",
	"metadata.max.age.ms", "group.instance.id",
}

// classicOnly are rejected by librdkafka under group.protocol=consumer,
// where the broker owns the timeouts and the assignor.
var classicOnly = []string{"partition.assignment.strategy", "session.timeout.ms", "heartbeat.interval.ms"}

func config(kv member.Args) (*kafka.ConfigMap, error) {
	cfg := kafka.ConfigMap{}
	keys := passed
	switch kv["group.protocol"] {
	case "classic":
		keys = append(keys, classicOnly...)
		for _, a := range strings.Split(kv["partition.assignment.strategy"], ",") {
			if a != "range" && a != "roundrobin" && a != "cooperative-sticky" {
				return nil, fmt.Errorf("assignor %q: librdkafka has range, roundrobin and cooperative-sticky", a)
			}
		}
	case "consumer":
		keys = append(keys, "group.remote.assignor")
	}
	for _, k := range keys {
		if v, ok := kv[k]; ok {
			cfg[k] = v
		}
	}
	return &cfg, nil
}

func run() error {
	kv, err := member.ParseArgs(os.Args[1:])
	if err != nil {
		return err
	}
	cfg, err := config(kv)
	if err != nil {
		return err
	}
	log := member.NewLog(os.Stdout, kv["rebalsim.topic.prefix"])
	rate, _ := strconv.ParseFloat(kv["rebalsim.processing.rate"], 64)
	batch := max(1, kv.Int("max.poll.records"))
	proc := member.NewProcessor(log, rate)

	if !log.WaitGo(os.Stdin) {
		return nil
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	c, err := kafka.NewConsumer(cfg)
	if err != nil {
		return err
	}
	log.Line("started", nil)
	gen := func() int {
		md, err := c.GetConsumerGroupMetadata()
		if err != nil {
			return -1
		}
		// The binding keeps the serialised form in its one unexported field.
		g, err := generationOf(reflect.ValueOf(md).Elem().Field(0).Bytes())
		if err != nil {
			return -1
		}
		return g
	}
	parts := func(tps []kafka.TopicPartition) []string {
		m := map[string][]int32{}
		for _, tp := range tps {
			m[*tp.Topic] = append(m[*tp.Topic], tp.Partition)
		}
		return log.Parts(m)
	}
	callback := func(kind string, tps []kafka.TopicPartition, spend time.Duration, act func() error) error {
		proc.Flush()
		ps := parts(tps)
		if len(ps) == 0 && kind != "assigned" {
			return act() // librdkafka calls revoke with nothing to revoke
		}
		if kind == "assigned" {
			// Java's consumer owns its new partitions when its listener runs.
			if err := act(); err != nil {
				return err
			}
		}
		log.Line(kind, map[string]any{"phase": "enter", "gen": gen(), "parts": ps})
		time.Sleep(spend)
		if kind != "assigned" {
			if err := act(); err != nil {
				return err
			}
		}
		log.Line(kind, map[string]any{"phase": "return", "gen": gen(), "parts": ps})
		return nil
	}
	rebalance := func(c *kafka.Consumer, ev kafka.Event) error {
		cooperative := c.GetRebalanceProtocol() == "COOPERATIVE"
		switch e := ev.(type) {
		case kafka.AssignedPartitions:
			return callback("assigned", e.Partitions, kv.Ms("rebalsim.assign.ms"), func() error {
				if cooperative {
					return c.IncrementalAssign(e.Partitions)
				}
				return c.Assign(e.Partitions)
			})
		case kafka.RevokedPartitions:
			kind, spend := "revoked", kv.Ms("rebalsim.revoke.ms")
			if c.AssignmentLost() {
				kind, spend = "lost", kv.Ms("rebalsim.lost.ms")
			}
			return callback(kind, e.Partitions, spend, func() error {
				if cooperative {
					return c.IncrementalUnassign(e.Partitions)
				}
				return c.Unassign()
			})
		}
		return nil
	}
	if err := c.SubscribeTopics(strings.Split(kv["rebalsim.topics"], ","), rebalance); err != nil {
		return err
	}
	lastGen, n := -2, 0
	for done := false; !done; {
		select {
		case <-term:
			done = true
			continue
		default:
		}
		switch e := c.Poll(50).(type) {
		case *kafka.Message:
			proc.Process(log.Part(*e.TopicPartition.Topic, e.TopicPartition.Partition), int64(e.TopicPartition.Offset))
			if n++; n >= batch {
				proc.Flush()
				n = 0
			}
		case nil:
			proc.Flush() // nothing fetched: log what was processed
		case kafka.Error:
			if e.IsFatal() {
				return e
			}
			fmt.Fprintln(os.Stderr, "rdkmember:", e)
		}
		if g := gen(); g != lastGen {
			log.Line("gen", map[string]any{"gen": g})
			lastGen = g
		}
	}
	proc.Flush()
	log.Line("closing", nil)
	err = c.Close()
	log.Line("closed", nil)
	return err
}
