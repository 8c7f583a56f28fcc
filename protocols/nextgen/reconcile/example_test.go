package reconcile_test

import (
	"fmt"

	"github.com/rebalsim/rebalsim/kafka"
	"github.com/rebalsim/rebalsim/protocols/nextgen/reconcile"
)

// A stable member at epoch 4 learns that target epoch 5 moves orders-2 away
// from it and gives it orders-3, which is free. It must first revoke
// orders-2: it stays at epoch 4 and does not get orders-3 yet. Once its
// heartbeat no longer lists orders-2 it moves to epoch 5 and gets orders-3.
func ExampleReconcile() {
	target := kafka.Assignment{"orders": {0, 1, 3}}
	free := func(kafka.TopicPartition) int32 { return -1 }

	m := reconcile.Member{State: reconcile.Stable, Epoch: 4, PreviousEpoch: 3,
		Assigned: kafka.Assignment{"orders": {0, 1, 2}}}
	m, _ = reconcile.Reconcile(reconcile.Input{Member: m, TargetEpoch: 5, Target: target,
		PartitionEpoch: free, Owned: kafka.Assignment{"orders": {0, 1, 2}}, OwnedKnown: true})
	fmt.Println(m)

	m, _ = reconcile.Reconcile(reconcile.Input{Member: m, TargetEpoch: 5, Target: target,
		PartitionEpoch: free, Owned: kafka.Assignment{"orders": {0, 1}}, OwnedKnown: true})
	fmt.Println(m)
	// Output:
	// UNREVOKED_PARTITIONS epoch=4 prev=4 assigned=orders[0 1] pending=orders[2]
	// STABLE epoch=5 prev=4 assigned=orders[0 1 3] pending=
}
