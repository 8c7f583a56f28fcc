package javaorder

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestStringHash(t *testing.T) {
	// Values of "...".hashCode() in Java: the empty string, two classic
	// member ids of AbstractStickyAssignorTest, a supplementary character,
	// and a Kafka Uuid string (printed by Java 17); and an ASCII prefix
	// before the same characters, worked out by the definition (31*h +
	// each UTF-16 code unit), which reproduces the Java values above.
	for s, want := range map[string]uint32{
		"":                       0,
		"consumer1":              0xe6e7fafb,
		"consumer4":              0xe6e7fafe,
		"é😀":                     0x1e780c,
		"c1-é😀":                  0xabd531ed,
		"eKNjg-2JTzSouCkNYZT7Wg": 0x3a97f127,
	} {
		if got := StringHash(s); got != want {
			t.Errorf("StringHash(%q) = %#x, want %#x", s, got, want)
		}
	}
}

// table replays puts and removals on a model of one of the two Java tables
// and lists its keys in iteration order.
type table struct {
	keys     []string
	capacity int
	grow     func(size, capacity int) int
	iterate  func(n, capacity int, hash func(i int) uint32) []int32
}

func (t *table) put(k string) {
	if slices.Contains(t.keys, k) {
		return // a replacement keeps the key's place
	}
	t.capacity = t.grow(len(t.keys), t.capacity)
	t.keys = append(t.keys, k)
}

func (t *table) remove(k string) {
	t.keys = slices.DeleteFunc(t.keys, func(o string) bool { return o == k })
}

func (t *table) order() string {
	var out []string
	for _, i := range t.iterate(len(t.keys), t.capacity, func(i int) uint32 { return StringHash(t.keys[i]) }) {
		out = append(out, t.keys[i])
	}
	return strings.Join(out, ",")
}

func timeline() *table {
	return &table{capacity: TimelineMinCapacity, grow: TimelineGrow, iterate: TimelineOrder}
}

func hashMap() *table {
	return &table{capacity: 16, grow: func(size, capacity int) int { return HashMapCapacity(size + 1) }, iterate: HashMapOrder}
}

// The expected orders were printed by Java 17 with Kafka 4.3.1's
// server-common on the class path: keySet() of a
// TimelineHashMap<>(new SnapshotRegistry(new LogContext()), 0) and of a
// new HashMap<>() after the same puts and removals.
func TestOrdersAsJavaIteratesThem(t *testing.T) {
	// Six consumer-protocol member ids of one real run (c1, c2, c3 and
	// their restarts).
	ids := []string{"eKNjg-2JTzSouCkNYZT7Wg", "19THneSqRiOm8E-rKy1JSA", "99wgFRUnSpeoULXKjGYFhw",
		"Huw6pcaOR86ESU_a-Ljzdg", "HpVtOGztQiyhloPiB0hDJQ", "71IiOPp6R5O4S_ScCRhbrQ"}
	tl := timeline()
	for _, k := range ids[:3] {
		tl.put(k)
	}
	// Three keys: the table has grown from 2 to 4 slots.
	if got, want := tl.order(), "99wgFRUnSpeoULXKjGYFhw,19THneSqRiOm8E-rKy1JSA,eKNjg-2JTzSouCkNYZT7Wg"; got != want {
		t.Errorf("timeline, 3 puts: %s, want %s", got, want)
	}
	tl.remove(ids[0])
	for _, k := range ids[3:] {
		tl.put(k)
	}
	// Five keys after a removal: 8 slots.
	timeline5 := "71IiOPp6R5O4S_ScCRhbrQ,HpVtOGztQiyhloPiB0hDJQ,99wgFRUnSpeoULXKjGYFhw,19THneSqRiOm8E-rKy1JSA,Huw6pcaOR86ESU_a-Ljzdg"
	if got := tl.order(); got != timeline5 {
		t.Errorf("timeline, 5 keys: %s, want %s", got, timeline5)
	}
	// Those five put into a HashMap in the timeline's order, as
	// TargetAssignmentBuilder builds its member specs.
	hm := hashMap()
	for _, k := range strings.Split(timeline5, ",") {
		hm.put(k)
	}
	if got, want := hm.order(), "HpVtOGztQiyhloPiB0hDJQ,99wgFRUnSpeoULXKjGYFhw,19THneSqRiOm8E-rKy1JSA,Huw6pcaOR86ESU_a-Ljzdg,71IiOPp6R5O4S_ScCRhbrQ"; got != want {
		t.Errorf("hash map of 5: %s, want %s", got, want)
	}

	// Twenty keys: the timeline table grows to 32 slots, the HashMap
	// resizes from 16 to 32 buckets at the 13th.
	tl, hm = timeline(), hashMap()
	for i := range 20 {
		tl.put(fmt.Sprintf("member-%d", i))
		hm.put(fmt.Sprintf("member-%d", i))
	}
	if got, want := tl.order(), "member-13,member-18,member-3,member-10,member-8,member-0,member-15,member-5,member-12,member-17,member-2,member-7,member-14,member-19,member-4,member-11,member-9,member-1,member-16,member-6"; got != want {
		t.Errorf("timeline of 20: %s, want %s", got, want)
	}
	if got, want := hm.order(), "member-19,member-18,member-17,member-16,member-5,member-15,member-6,member-14,member-3,member-13,member-4,member-12,member-9,member-11,member-10,member-7,member-8,member-1,member-2,member-0"; got != want {
		t.Errorf("hash map of 20: %s, want %s", got, want)
	}
}

func TestCapacities(t *testing.T) {
	// HashMap: 16 buckets hold 12 keys (0.75 load factor); the 13th
	// doubles the table, the 25th doubles it again.
	for n, want := range map[int]int{0: 16, 12: 16, 13: 32, 24: 32, 25: 64} {
		if got := HashMapCapacity(n); got != want {
			t.Errorf("HashMapCapacity(%d) = %d, want %d", n, got, want)
		}
	}
	// BaseHashTable: the third element doubles 2 slots ((2+1)*0.75 > 2),
	// the sixth doubles 4 ((5+1)*0.75 > 4).
	for _, tc := range []struct{ size, capacity, want int }{{1, 2, 2}, {2, 2, 4}, {4, 4, 4}, {5, 4, 8}} {
		if got := TimelineGrow(tc.size, tc.capacity); got != tc.want {
			t.Errorf("TimelineGrow(%d, %d) = %d, want %d", tc.size, tc.capacity, got, tc.want)
		}
	}
}
