// Package javaorder computes the iteration order of the Java hash tables
// whose order reaches Kafka's group coordinator and assignors: which member
// a java.util.HashMap keyed by member id hands out first decides who leads a
// classic group, who gets the uniform assignor's extra partition, and which
// owner wins a sticky assignor's tie. rebalsim reproduces those orders from
// the keys' hash codes instead of inventing one.
//
// Two tables matter:
//
//   - java.util.HashMap (and HashSet, which is one): bucket by bucket, the
//     bucket of hash code h being (h ^ h>>>16) & (capacity-1), and within a
//     bucket in insertion order. A resize splits each bucket's chain keeping
//     its order, so the whole order is a stable sort of the insertion order
//     by bucket. Treeification (eight keys in one bucket of a table of at
//     least 64) is not modelled: with random member ids it does not happen.
//   - org.apache.kafka.timeline.BaseHashTable (TimelineHashMap, the group
//     coordinator's member map of a consumer group): slot by slot, the slot
//     being the top bits of the hash code times a 64-bit Fibonacci constant,
//     and within a slot from the last inserted to the first: a slot holds
//     its elements in an array in insertion order, which rehashing keeps (a
//     slot of the doubled table takes its elements from one slot of the old
//     one, in their order), and SnapshottableHashTable's CurrentIterator
//     hands out each slot's array from its end.
//
// Neither table shrinks when keys are removed.
package javaorder

import "unicode/utf8"

// StringHash is java.lang.String.hashCode: s[0]*31^(n-1) + ... + s[n-1]
// over the string's UTF-16 code units, in 32-bit wrapping arithmetic.
// Member ids are ASCII, one code unit a byte, so their bytes are summed
// as they are; from the first byte that is not, the runes are decoded.
func StringHash(s string) uint32 {
	var h uint32
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf16Hash(h, s[i:])
		}
		h = 31*h + uint32(s[i])
	}
	return h
}

// utf16Hash goes on with hash code h over s's UTF-16 code units.
func utf16Hash(h uint32, s string) uint32 {
	for _, r := range s {
		if r >= 0x10000 && r <= utf8.MaxRune {
			// A supplementary character is two UTF-16 code units.
			r -= 0x10000
			h = 31*h + uint32(0xD800+(r>>10))
			h = 31*h + uint32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}

// HashMapBucket is the bucket of hash code h in a java.util.HashMap of the
// given capacity (a power of two): HashMap.hash spreads the high half of
// the hash code into the low one before masking.
func HashMapBucket(h uint32, capacity int) int {
	return int((h ^ h>>16) & uint32(capacity-1))
}

// HashMapCapacity is the table size of a `new HashMap<>()` (16 buckets,
// load factor 0.75) after n distinct keys were put in it: it doubles
// whenever its size passes three quarters of its capacity.
func HashMapCapacity(n int) int {
	capacity := 16
	for n*4 > capacity*3 {
		capacity *= 2
	}
	return capacity
}

// TimelineMinCapacity is BaseHashTable.MIN_CAPACITY, the size of a
// TimelineHashMap created with an expected size of 0, as ConsumerGroup
// creates its member map.
const TimelineMinCapacity = 2

// TimelineGrow is the capacity of a BaseHashTable of the given capacity
// holding size elements once one more is added (baseAddOrReplace): it
// doubles first when (size+1) * 0.75 exceeds the capacity. Replacing an
// element under its key changes nothing.
func TimelineGrow(size, capacity int) int {
	if 3*(size+1) > 4*capacity {
		return 2 * capacity
	}
	return capacity
}

// TimelineSlot is BaseHashTable.findSlot: the hash code, sign-extended to
// 64 bits, times -7046029254386353131 (Knuth's multiplicative hashing),
// of which the top log2(capacity) bits choose the slot.
func TimelineSlot(h uint32, capacity int) int {
	const fibonacci = 0x9E3779B97F4A7C15 // -7046029254386353131 as 64 bits
	product := uint64(int64(int32(h))) * fibonacci
	bits := 0
	for 1<<bits < capacity {
		bits++
	}
	if bits == 0 {
		return 0
	}
	return int(product >> (64 - bits))
}

// HashMapOrder is the iteration order of a java.util.HashMap of the given
// capacity holding n keys, put in the order 0..n-1, whose hash codes are
// hash(i): the indices, bucket by bucket, each bucket in insertion order.
func HashMapOrder(n, capacity int, hash func(i int) uint32) []int32 {
	return byBucket(n, capacity, func(i int) int { return HashMapBucket(hash(i), capacity) })
}

// TimelineOrder is the iteration order of a TimelineHashMap of the given
// capacity holding n keys, put in the order 0..n-1, whose hash codes are
// hash(i): the indices, slot by slot, each slot from the last put to the
// first.
func TimelineOrder(n, capacity int, hash func(i int) uint32) []int32 {
	order := byBucket(n, capacity, func(j int) int { return TimelineSlot(hash(n-1-j), capacity) })
	for k, j := range order {
		order[k] = int32(n-1) - j
	}
	return order
}

// byBucket returns 0..n-1 stably sorted by bucket(i), each bucket in
// [0, buckets). It is a counting sort, linear in n and buckets.
func byBucket(n, buckets int, bucket func(i int) int) []int32 {
	of := make([]int32, n)
	start := make([]int32, buckets+1)
	for i := range n {
		b := bucket(i)
		of[i] = int32(b)
		start[b+1]++
	}
	for b := range buckets {
		start[b+1] += start[b]
	}
	order := make([]int32, n)
	for i, b := range of {
		order[start[b]] = int32(i)
		start[b]++
	}
	return order
}
