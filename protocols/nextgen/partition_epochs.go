package nextgen

import (
	"fmt"
	"math"

	"github.com/rebalsim/rebalsim/kafka"
)

// partitionEpochs is ConsumerGroup.currentPartitionEpoch: for every
// partition a member holds or is revoking, that member's epoch. It is the
// coordinator's guard against two owners: a partition with an epoch is not
// free, whatever the target says. Per topic, a slice indexed by partition.
type partitionEpochs map[string][]int32

// unclaimed marks a free partition; -1 cannot, as epochs may be negative
// (-2, a static member that left).
const unclaimed int32 = math.MinInt32

// get returns the epoch of tp's owner, -1 if it is free.
func (pe partitionEpochs) get(tp kafka.TopicPartition) int32 {
	ps := pe[tp.Topic]
	if int(tp.Partition) >= len(ps) || ps[tp.Partition] == unclaimed {
		return -1
	}
	return ps[tp.Partition]
}

// claim sets a's partitions to epoch (addPartitionEpochs). A partition
// already claimed is a bug: Kafka throws IllegalStateException.
func (pe partitionEpochs) claim(a kafka.Assignment, epoch int32) {
	for t, parts := range a {
		ps := pe[t]
		for _, p := range parts {
			for int(p) >= len(ps) {
				ps = append(ps, unclaimed)
			}
			if ps[p] != unclaimed {
				panic(fmt.Sprintf("nextgen: cannot set the epoch of %s-%d to %d: still owned at epoch %d", t, p, epoch, ps[p]))
			}
			ps[p] = epoch
		}
		pe[t] = ps
	}
}

// release frees a's partitions, which must be claimed at epoch
// (removePartitionEpochs).
func (pe partitionEpochs) release(a kafka.Assignment, epoch int32) {
	for t, parts := range a {
		ps := pe[t]
		for _, p := range parts {
			if int(p) >= len(ps) || ps[p] != epoch {
				panic(fmt.Sprintf("nextgen: cannot remove epoch %d from %s-%d: it is owned at epoch %d", epoch, t, p, pe.get(kafka.TopicPartition{Topic: t, Partition: p})))
			}
			ps[p] = unclaimed
		}
	}
}

// move sets a's partitions, which must be claimed at from, to epoch to:
// release and claim in one pass.
func (pe partitionEpochs) move(a kafka.Assignment, from, to int32) {
	for t, parts := range a {
		ps := pe[t]
		for _, p := range parts {
			if int(p) >= len(ps) || ps[p] != from {
				panic(fmt.Sprintf("nextgen: cannot move %s-%d from epoch %d to %d: it is owned at epoch %d", t, p, from, to, pe.get(kafka.TopicPartition{Topic: t, Partition: p})))
			}
			ps[p] = to
		}
	}
}

// held returns every claimed partition with its epoch (for tests and dumps;
// callers sort what they show).
func (pe partitionEpochs) held() map[kafka.TopicPartition]int32 {
	out := map[kafka.TopicPartition]int32{}
	for t, ps := range pe {
		for p, e := range ps {
			if e != unclaimed {
				out[kafka.TopicPartition{Topic: t, Partition: int32(p)}] = e
			}
		}
	}
	return out
}
