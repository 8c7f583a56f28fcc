package nextgen_test

import (
	"fmt"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/nextgen"
	"github.com/rebalsim/rebalsim/sim"
)

// A member joins an unused group: the coordinator turns it into a consumer
// group, bumps the epoch and hands the member every partition. Under Kafka
// 4.3, the default release, a new group starts at epoch 1 (KAFKA-20268),
// so the first assignment is epoch 2.
func ExampleCoordinator() {
	coord := nextgen.NewCoordinator(sim.ResolveGroupConfig(sim.GroupConfig{}))
	env := sim.CoordinatorEnv{Now: 0, Metadata: []kafka.Topic{{Name: "orders", Partitions: 3}}}
	var out sim.Effects
	coord.Receive(env, sim.Endpoint{Process: "c1", Incarnation: 1}, &nextgen.ConsumerGroupHeartbeatRequest{
		MemberEpoch: nextgen.JoinGroupMemberEpoch, RebalanceTimeoutMs: 300000,
		SubscribedTopicNames: []string{"orders"}, TopicPartitions: kafka.Assignment{},
	}, &out)
	r := out.Sends[0].Msg.(*nextgen.ConsumerGroupHeartbeatResponse)
	fmt.Println(r.ErrorCode, r.MemberID, r.MemberEpoch, r.Assignment, coord.State())
	// Output: NONE c1-1 2 orders[0 1 2] STABLE
}

// A consumer joins on its first poll with a full heartbeat at epoch 0.
func ExampleClient() {
	cfg := sim.DefaultConsumerConfig("c1")
	cfg.GroupProtocol, cfg.Subscription = "consumer", []string{"orders"}
	c := nextgen.NewClient(sim.Endpoint{Process: "c1", Incarnation: 1}, cfg)
	var out sim.Effects
	c.Start(sim.ClientEnv{}, &out)
	fmt.Println("wants poll:", out.WantPoll)
	out.Reset()
	c.Poll(sim.ClientEnv{}, &out)
	req := out.Sends[0].Msg.(*nextgen.ConsumerGroupHeartbeatRequest)
	fmt.Println(c.State(), req.Kind(), req.MemberEpoch, req.SubscribedTopicNames)
	// Output:
	// wants poll: true
	// JOINING ConsumerGroupHeartbeat 0 [orders]
}
